#ifndef TOUCHGATE_CCOMMANDLINE_H
#define TOUCHGATE_CCOMMANDLINE_H
// Nothing to import: this module only defines, for the linker, the function behind Swift's
// `CommandLine.arguments` (see CommandLine.c).
#endif
