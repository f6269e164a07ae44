#!/usr/bin/python3
# Test double for what rxdeck asks of D-Bus on a Deck: logind's Inhibit
# (org.freedesktop.login1) and steamos-manager's GPU level, clock and TDP
# (com.steampowered.SteamOSManager1), both served on the one bus named by
# DBUS_SESSION_BUS_ADDRESS (a private dbus-daemon the test started).
#
#   deck-bus-double.py LOG [--no-manager] [--refuse-inhibit]
#                          [--systemd-version=V]
#
# Every call is appended to LOG as one line ("inhibit sleep:idle rxdeck WHY
# block", "released 1", "set TdpLimit 12"); "ready" once both names are
# owned.  An inhibitor is a pipe: the caller gets the write end, and the
# double logs "released N" when every copy of it is closed, as logind
# drops an inhibitor whose descriptor is gone.
#
# Sleep (systemd's org.freedesktop.login1(5), org.freedesktop.systemd1(5)):
# login1's Manager sends PrepareForSleep(b) as logind does, true before a
# suspend and false after the wake, when a test calls the double's own
# org.rxdeck.Double.Sleep() (logged "slept"); with --systemd-version=V,
# org.freedesktop.systemd1's Manager serves the Version property V.
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

LOG = sys.argv[1]
NO_MANAGER = "--no-manager" in sys.argv
REFUSE = "--refuse-inhibit" in sys.argv
SYSTEMD_VERSION = next((a.split("=", 1)[1] for a in sys.argv
                        if a.startswith("--systemd-version=")), None)

MGR = "com.steampowered.SteamOSManager1"
GPU = MGR + ".GpuPerformanceLevel1"
TDP = MGR + ".TdpLimit1"
PROPS = "org.freedesktop.DBus.Properties"


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


class Login(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/login1")
        self.n = 0

    @dbus.service.method("org.freedesktop.login1.Manager", in_signature="ssss",
                         out_signature="h")
    def Inhibit(self, what, who, why, mode):
        if REFUSE:
            raise dbus.exceptions.DBusException(
                "Access denied", name="org.freedesktop.DBus.Error.AccessDenied")
        self.n += 1
        n = self.n
        r, w = os.pipe()
        log("inhibit %s %s %s %s" % (what, who, why, mode))

        def gone(fd, cond):
            log("released %d" % n)
            os.close(fd)
            return False

        GLib.io_add_watch(r, GLib.IO_HUP | GLib.IO_ERR, gone)
        fd = dbus.types.UnixFd(w)
        os.close(w)
        return fd

    @dbus.service.signal("org.freedesktop.login1.Manager", signature="b")
    def PrepareForSleep(self, start):
        pass

    @dbus.service.method("org.rxdeck.Double", in_signature="", out_signature="")
    def Sleep(self):
        self.PrepareForSleep(True)
        self.PrepareForSleep(False)
        log("slept")


class Systemd(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/systemd1")

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, name):
        if iface == "org.freedesktop.systemd1.Manager" and name == "Version":
            return dbus.String(SYSTEMD_VERSION)
        raise dbus.exceptions.DBusException(
            "no property %s.%s" % (iface, name),
            name="org.freedesktop.DBus.Error.UnknownProperty")


class Manager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/com/steampowered/SteamOSManager1")
        self.props = {
            GPU: {"GpuPerformanceLevel": dbus.String("auto"),
                  "AvailableGpuPerformanceLevels":
                      dbus.Array(["auto", "low", "high", "manual", "profile_peak"],
                                 signature="s"),
                  "ManualGpuClock": dbus.UInt32(1600),
                  "ManualGpuClockMin": dbus.UInt32(200),
                  "ManualGpuClockMax": dbus.UInt32(1600)},
            TDP: {"TdpLimit": dbus.UInt32(15),
                  "TdpLimitMin": dbus.UInt32(3),
                  "TdpLimitMax": dbus.UInt32(15)},
        }
        self.writable = {"GpuPerformanceLevel", "ManualGpuClock", "TdpLimit"}

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, name):
        try:
            return self.props[iface][name]
        except KeyError:
            raise dbus.exceptions.DBusException(
                "no property %s.%s" % (iface, name),
                name="org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, iface):
        return self.props.get(iface, {})

    @dbus.service.method(PROPS, in_signature="ssv")
    def Set(self, iface, name, value):
        if iface not in self.props or name not in self.writable:
            raise dbus.exceptions.DBusException(
                "property %s.%s is not writable" % (iface, name),
                name="org.freedesktop.DBus.Error.PropertyReadOnly")
        if name == "GpuPerformanceLevel" and value not in \
                self.props[GPU]["AvailableGpuPerformanceLevels"]:
            raise dbus.exceptions.DBusException(
                "invalid level", name="org.freedesktop.DBus.Error.InvalidArgs")
        old = self.props[iface][name]
        self.props[iface][name] = type(old)(value)
        log("set %s %s" % (name, value))


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
login = Login(bus)
names = [dbus.service.BusName("org.freedesktop.login1", bus)]
if not NO_MANAGER:
    manager = Manager(bus)
    names.append(dbus.service.BusName(MGR, bus))
if SYSTEMD_VERSION:
    systemd = Systemd(bus)
    names.append(dbus.service.BusName("org.freedesktop.systemd1", bus))
log("ready")
GLib.MainLoop().run()
