#ifndef TOUCHGATE_CVTERM_SHIM_H
#define TOUCHGATE_CVTERM_SHIM_H
// libvterm (libvterm-dev): the terminal emulator that keeps the inner program's screen of
// `touchgate shell`, so the owner can draw it back after an unlock.
#include <vterm.h>
#endif
