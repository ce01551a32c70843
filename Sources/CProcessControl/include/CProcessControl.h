#ifndef TOUCHGATE_CPROCESSCONTROL_H
#define TOUCHGATE_CPROCESSCONTROL_H
// The process-control calls Swift cannot make itself: `prctl` is variadic, and Swift does not
// import variadic C functions. `touchgate`'s `main` uses them to make every process non-dumpable
// before it reads anything (no core file, no `ptrace` or `/proc/PID/mem` by same-user processes
// without CAP_SYS_PTRACE), a security requirement (docs/security.md), and to make the biometric
// worker die with the process that started it.

/// `prctl(PR_SET_DUMPABLE, dumpable)` with fixed arguments: 0 on success, -1 and `errno` on error.
int touchgate_set_dumpable(int dumpable);

/// `prctl(PR_SET_PDEATHSIG, signal)` with fixed arguments: 0 on success, -1 and `errno` on error.
int touchgate_set_parent_death_signal(int signal);

#endif
