#ifndef TOUCHGATE_CPROCESSCONTROL_H
#define TOUCHGATE_CPROCESSCONTROL_H
// The one process-control call Swift cannot make itself: `prctl` is variadic, and Swift does not
// import variadic C functions. `touchgate`'s `main` uses it to make every process non-dumpable
// before it reads anything (no core file, no `ptrace` or `/proc/PID/mem` by same-user processes
// without CAP_SYS_PTRACE), a security requirement (docs/security.md).

/// `prctl(PR_SET_DUMPABLE, dumpable)` with fixed arguments: 0 on success, -1 and `errno` on error.
int touchgate_set_dumpable(int dumpable);

#endif
