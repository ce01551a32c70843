#ifndef TOUCHGATE_CCOMMANDLINE_H
#define TOUCHGATE_CCOMMANDLINE_H
// The module mostly defines, for the linker, the function behind Swift's `CommandLine.arguments`
// (see CommandLine.c). It also gives Swift the one C call it cannot make itself:

#include <sys/prctl.h>

// `prctl` is variadic, which Swift cannot call: a fixed-argument wrapper for PR_SET_DUMPABLE.
static inline int touchgate_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}

// The same for PR_SET_PDEATHSIG: the biometric worker dies with the process that started it.
static inline int touchgate_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

#endif
