#ifndef TOUCHGATE_CDBUS_SHIM_H
#define TOUCHGATE_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
