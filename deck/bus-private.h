/* deck bus internals shared by bus.c (logind's inhibitor, steamos-manager)
 * and sleep.c (logind's PrepareForSleep, systemd's version): opening a
 * bus connection, and the words of their failures.  bus.c owns them. */
#ifndef RXDECK_DECK_BUS_PRIVATE_H
#define RXDECK_DECK_BUS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

/* printf into errmsg; nothing when errmsg is NULL or size 0. */
void deck_say(char *errmsg, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The bus error's own words when it has them, else errno's for r. */
const char *deck_bus_why(const sd_bus_error *e, int r);

/*
 * A new connection to the system bus (system) or the session bus, at
 * DBUS_SYSTEM_BUS_ADDRESS / DBUS_SESSION_BUS_ADDRESS where they are set
 * (the tests' private dbus-daemons), released with
 * sd_bus_flush_close_unref().  -ENOENT when it cannot be reached, errmsg
 * saying "cannot reach the system bus PURPOSE: why" ("no system bus: why"
 * for a NULL purpose).
 */
int deck_bus_open(bool system, const char *purpose, sd_bus **out, char *errmsg, size_t size);

#endif
