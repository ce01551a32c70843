#ifndef TOUCHGATE_CPAM_SHIM_H
#define TOUCHGATE_CPAM_SHIM_H
#include <security/pam_appl.h>
#endif
