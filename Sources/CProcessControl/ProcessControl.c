// A fixed-argument wrapper for `prctl`, which Swift cannot call (it is variadic); see the header.
#include "CProcessControl.h"

#include <sys/prctl.h>

int touchgate_set_dumpable(int dumpable) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL);
}

int touchgate_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}
