#!/usr/bin/python3
# Test double for what rxdeck asks of D-Bus on a Deck: logind's Inhibit
# (org.freedesktop.login1, system bus) and steamos-manager
# (com.steampowered.SteamOSManager1 at /com/steampowered/SteamOSManager1) as
# one of its eras serves it, each on the bus that era uses.  The buses are
# the private dbus-daemons named by DBUS_SYSTEM_BUS_ADDRESS and
# DBUS_SESSION_BUS_ADDRESS (started by the test).
#
#   deck-bus-double.py LOG [--era ERA] [--root DIR --card REL --hwmon REL]
#                          [--no-manager] [--refuse-inhibit] [--systemd-version=V]
#                          [--fail-clock]
#
# Eras, each serving the names, types and access of its interface file at
# the named tag of steamos-manager (github.com/evlaV/steamos-manager;
# Jovian-Experiments/steamos-manager holds the same commits for the tags up
# to v25.1.1); only the interfaces that carry the GPU level, clock, TDP and
# Version are served:
#   split       v25.1.0, com.steampowered.SteamOSManager1.xml (interfaces
#               GpuPerformanceLevel1, TdpLimit1) and
#               com.steampowered.SteamOSManager1.Manager.xml (the deprecated
#               Manager: Version, TdpLimitMin, WifiDebugModeState,
#               WifiBackend, method SetWifiDebugMode); session bus (the user
#               daemon, src/daemon/user.rs); Version 9 (src/lib.rs
#               API_VERSION).
#   split-bare  v25.1.0 on a host where neither GpuPerformanceLevel1 nor
#               TdpLimit1 is exported (src/manager/user.rs exports each only
#               when the kernel offers levels and a TDP): the deprecated
#               Manager alone, session bus.
#   manager     v24.5.0, com.steampowered.SteamOSManager1.xml, interface
#               com.steampowered.SteamOSManager1.Manager with u properties
#               GpuPerformanceLevel, ManualGpuClock(Min/Max),
#               TdpLimit(Min/Max); system bus (the root daemon,
#               src/daemon/root.rs); Version 8.
#   manager-GPU v24.4.0 (also v24.11.1, SteamOS 3.6's hotfix),
#               com.steampowered.SteamOSManager1.xml, the same values spelt
#               GPUPerformanceLevel, ManualGPUClock(Min/Max),
#               TDPLimit(Min/Max); system bus (src/main.rs); Version 7.
#   methods     v0.20231115.0, com.steampowered.SteamOSManager1.xml,
#               interface com.steampowered.SteamOSManager1 with Version (u)
#               and the methods SetGpuPerformanceLevel(i) -> b,
#               SetGpuClocks(i) -> b, SetTDPLimit(i) -> b; system bus.
#   unit-fails  nothing here: the test's session bus has an activation file
#               for the name whose program fails, as v25.6.0-v25.7.0's user
#               unit does without %t/gamescope-environment
#               (data/user/steamos-manager.service, EnvironmentFile=).
# Level codes (u and i): 0 auto, 1 low, 2 high, 3 manual, 4 profile_peak
# (src/power.rs GPUPerformanceLevel); the ranges are the code's fixed
# 200-1600 MHz and 3-15 W (v24) or the device table's same values (v25,
# data/platforms/jupiter.toml).
#
# Like steamos-manager, a setting is written to the card's sysfs under
# --root (power_dpm_force_performance_level; pp_od_clk_voltage "s 0 N",
# "s 1 N", "c", appended so the fake file keeps its table as the kernel's
# attribute does; the hwmon's power1_cap and power2_cap in uW), and the
# level and TDP are read back from there.  The Manager interface of the
# v24 eras is served with its GPU, TDP and Version properties only (its
# Wi-Fi, fan, CEC and other members are left out).  Upstream writes card0 and (2023)
# hwmon5 by fixed paths; the double takes the card and hwmon from the test.
#
# Every call is appended to LOG as one line ("inhibit sleep:idle rxdeck WHY
# block", "released 1", "set TdpLimit 12", "call SetTDPLimit 12"); "ready"
# once every name is owned.  An inhibitor is a pipe: the caller gets the
# write end, and the double logs "released N" when every copy of it is
# closed, as logind drops an inhibitor whose descriptor is gone.
#
# --fail-clock: the manual clock is refused after the level was set, as
# steamos-manager answers when the kernel refuses pp_od_clk_voltage (an
# error from Set on ManualGpuClock/ManualGPUClock; false from the 2023
# SetGpuClocks); the error's words are the double's own, not upstream's.
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

args = sys.argv[1:]
LOG = args[0]


def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default


ERA = "none" if "--no-manager" in args else opt("--era", "split")
REFUSE = "--refuse-inhibit" in args
FAIL_CLOCK = "--fail-clock" in args
ROOT = opt("--root")
CARD = opt("--card")
HWMON = opt("--hwmon")
SYSTEMD_VERSION = next((a.split("=", 1)[1] for a in args
                        if a.startswith("--systemd-version=")), None)

MGR = "com.steampowered.SteamOSManager1"
PATH = "/com/steampowered/SteamOSManager1"
GPU = MGR + ".GpuPerformanceLevel1"
TDP = MGR + ".TdpLimit1"
OLD = MGR + ".Manager"
PROPS = "org.freedesktop.DBus.Properties"
INTRO = "org.freedesktop.DBus.Introspectable"
LEVELS = ["auto", "low", "high", "manual", "profile_peak"]


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


def failed(msg, name="org.freedesktop.DBus.Error.Failed"):
    return dbus.exceptions.DBusException(msg, name=name)


class Sysfs:
    """The card's files under the test's root, as steamos-manager writes them."""

    def path(self, rel):
        return os.path.join(ROOT, rel) if ROOT else None

    def write(self, rel, text):
        p = self.path(rel)
        if p:
            with open(p, "w") as f:
                f.write(text)

    def read(self, rel, default):
        p = self.path(rel)
        try:
            with open(p) as f:
                return f.read().strip()
        except (OSError, TypeError):
            return default

    def level(self):
        return self.read(CARD and CARD + "/power_dpm_force_performance_level", "auto")

    def set_level(self, name):
        if CARD:
            self.write(CARD + "/power_dpm_force_performance_level", name)

    def set_clock(self, mhz):
        # appended: a regular file standing for the attribute keeps its
        # table, as the kernel's does after a command
        p = self.path(CARD + "/pp_od_clk_voltage") if CARD else None
        if p:
            with open(p, "a") as f:
                f.write("s 0 %d\ns 1 %d\nc\n" % (mhz, mhz))

    def tdp(self):
        v = self.read(HWMON and HWMON + "/power1_cap", "15000000")
        return int(v) // 1000000

    def set_tdp(self, w):
        if HWMON:
            self.write(HWMON + "/power1_cap", "%d" % (w * 1000000))
            self.write(HWMON + "/power2_cap", "%d" % (w * 1000000))


SYSFS = Sysfs()


class Login(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/login1")
        self.n = 0

    @dbus.service.method("org.freedesktop.login1.Manager", in_signature="ssss",
                         out_signature="h")
    def Inhibit(self, what, who, why, mode):
        if REFUSE:
            raise failed("Access denied", "org.freedesktop.DBus.Error.AccessDenied")
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


def prop_xml(name, sig, access):
    return '    <property name="%s" type="%s" access="%s"/>\n' % (name, sig, access)


class Properties(dbus.service.Object):
    """An object serving u/s/as properties per interface from a table:
    {iface: [(name, signature, access), ...]}, plus extra XML."""

    def __init__(self, bus, table, extra_xml=""):
        super().__init__(bus, PATH)
        self.table = table
        self.extra_xml = extra_xml
        self.clock = 1600

    def introspection(self):
        xml = ('<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"\n'
               '"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">\n<node>\n'
               '  <interface name="%s">\n    <method name="Introspect">\n'
               '      <arg name="xml_data" type="s" direction="out"/>\n    </method>\n'
               '  </interface>\n  <interface name="%s">\n'
               '    <method name="Get"><arg type="s" direction="in"/><arg type="s" '
               'direction="in"/><arg type="v" direction="out"/></method>\n'
               '    <method name="Set"><arg type="s" direction="in"/><arg type="s" '
               'direction="in"/><arg type="v" direction="in"/></method>\n'
               '    <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" '
               'direction="out"/></method>\n  </interface>\n' % (INTRO, PROPS))
        for iface, props in self.table.items():
            xml += '  <interface name="%s">\n' % iface
            for name, sig, access in props:
                xml += prop_xml(name, sig, access)
            xml += self.extra_xml.get(iface, "") if isinstance(self.extra_xml, dict) else ""
            xml += "  </interface>\n"
        return xml + "</node>\n"

    @dbus.service.method(INTRO, in_signature="", out_signature="s")
    def Introspect(self):
        return self.introspection()

    def find(self, iface, name):
        for n, sig, access in self.table.get(iface, []):
            if n == name:
                return sig, access
        raise failed("no property %s.%s" % (iface, name),
                     "org.freedesktop.DBus.Error.UnknownProperty")

    def value(self, name):
        """The property's value, by its meaning whatever the spelling."""
        key = name.lower()
        if key == "version":
            return dbus.UInt32({"split": 9, "split-bare": 9, "manager": 8, "manager-GPU": 7}[ERA])
        if key == "gpuperformancelevel":
            level = SYSFS.level()
            if ERA == "split":
                return dbus.String(level)
            if level not in LEVELS:
                raise failed("No enum match for value %s" % level)
            return dbus.UInt32(LEVELS.index(level))
        if key == "availablegpuperformancelevels":
            return dbus.Array(LEVELS, signature="s")
        if key == "manualgpuclock":
            return dbus.UInt32(self.clock)
        if key == "manualgpuclockmin":
            return dbus.UInt32(200)
        if key == "manualgpuclockmax":
            return dbus.UInt32(1600)
        if key == "tdplimit":
            return dbus.UInt32(SYSFS.tdp())
        if key == "tdplimitmin":
            return dbus.UInt32(3)
        if key == "tdplimitmax":
            return dbus.UInt32(15)
        return dbus.UInt32(0)

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, name):
        self.find(iface, name)
        return self.value(name)

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, iface):
        return dbus.Dictionary({n: self.value(n) for n, _, _ in self.table.get(iface, [])},
                               signature="sv")

    @dbus.service.method(PROPS, in_signature="ssv")
    def Set(self, iface, name, value):
        sig, access = self.find(iface, name)
        if access != "readwrite":
            raise failed("property %s.%s is not writable" % (iface, name),
                         "org.freedesktop.DBus.Error.PropertyReadOnly")
        key = name.lower()
        if sig == "u" and not isinstance(value, dbus.UInt32):
            raise failed("%s takes u" % name, "org.freedesktop.DBus.Error.InvalidArgs")
        if key == "gpuperformancelevel":
            if sig == "s":
                if value not in LEVELS:
                    raise failed("No enum match for value %s" % value,
                                 "org.freedesktop.DBus.Error.InvalidArgs")
                level = str(value)
            else:
                if int(value) >= len(LEVELS):
                    raise failed("No enum match for value %d" % value)
                level = LEVELS[int(value)]
            SYSFS.set_level(level)
        elif key == "manualgpuclock":
            if not 200 <= int(value) <= 1600:
                raise failed("Invalid clocks")
            if FAIL_CLOCK:
                log("refused %s %s" % (name, value))
                raise failed("the double refuses the manual clock (--fail-clock)")
            self.clock = int(value)
            SYSFS.set_clock(self.clock)
        elif key == "tdplimit":
            if not 3 <= int(value) <= 15:
                raise failed("Invalid limit")
            SYSFS.set_tdp(int(value))
        log("set %s %s" % (name, value))


class Methods2023(dbus.service.Object):
    """v0.20231115.0's interface: methods only, each answering success."""

    def __init__(self, bus):
        super().__init__(bus, PATH)

    @dbus.service.method(INTRO, in_signature="", out_signature="s")
    def Introspect(self):
        m = ""
        for name, arg in (("SetGpuPerformanceLevel", "level"), ("SetGpuClocks", "clocks"),
                          ("SetTDPLimit", "limit")):
            m += ('    <method name="%s">\n      <arg type="i" name="%s" direction="in"/>\n'
                  '      <arg type="b" name="success" direction="out"/>\n    </method>\n'
                  % (name, arg))
        return ('<node>\n  <interface name="%s">\n    <method name="Introspect">\n'
                '      <arg name="xml_data" type="s" direction="out"/>\n    </method>\n'
                '  </interface>\n  <interface name="%s">\n%s%s  </interface>\n</node>\n'
                % (INTRO, MGR, prop_xml("Version", "u", "read"), m))

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, name):
        if iface == MGR and name == "Version":
            return dbus.UInt32(1)
        raise failed("no property %s.%s" % (iface, name),
                     "org.freedesktop.DBus.Error.UnknownProperty")

    @dbus.service.method(MGR, in_signature="i", out_signature="b")
    def SetGpuPerformanceLevel(self, level):
        log("call SetGpuPerformanceLevel %d" % level)
        if not 0 <= level < len(LEVELS):
            return False
        SYSFS.set_level(LEVELS[level])
        return True

    @dbus.service.method(MGR, in_signature="i", out_signature="b")
    def SetGpuClocks(self, clocks):
        log("call SetGpuClocks %d" % clocks)
        if not 200 <= clocks <= 1600 or FAIL_CLOCK:
            return False
        SYSFS.set_clock(clocks)
        return True

    @dbus.service.method(MGR, in_signature="i", out_signature="b")
    def SetTDPLimit(self, limit):
        log("call SetTDPLimit %d" % limit)
        if not 3 <= limit <= 15:
            return False
        SYSFS.set_tdp(limit)
        return True


def manager_table(spelling):
    g = "GPU" if spelling == "GPU" else "Gpu"
    t = "TDP" if spelling == "GPU" else "Tdp"
    return {OLD: [("Version", "u", "read"),
                  (g + "PerformanceLevel", "u", "readwrite"),
                  ("Manual" + g + "Clock", "u", "readwrite"),
                  ("Manual" + g + "ClockMin", "u", "read"),
                  ("Manual" + g + "ClockMax", "u", "read"),
                  (t + "Limit", "u", "readwrite"),
                  (t + "LimitMin", "u", "read"),
                  (t + "LimitMax", "u", "read")]}


SPLIT_TABLE = {
    GPU: [("AvailableGpuPerformanceLevels", "as", "read"),
          ("GpuPerformanceLevel", "s", "readwrite"),
          ("ManualGpuClock", "u", "readwrite"),
          ("ManualGpuClockMin", "u", "read"),
          ("ManualGpuClockMax", "u", "read")],
    TDP: [("TdpLimit", "u", "readwrite"),
          ("TdpLimitMin", "u", "read"),
          ("TdpLimitMax", "u", "read")],
    OLD: [("Version", "u", "read"),
          ("TdpLimitMin", "u", "read"),
          ("WifiDebugModeState", "u", "read"),
          ("WifiBackend", "u", "readwrite")],
}
SPLIT_EXTRA = {OLD: '    <method name="SetWifiDebugMode">\n'
                    '      <arg type="u" name="mode" direction="in"/>\n'
                    '      <arg type="u" name="buffer_size" direction="in"/>\n'
                    '    </method>\n'}

DBusGMainLoop(set_as_default=True)
system = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
session = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
login = Login(system)
names = [dbus.service.BusName("org.freedesktop.login1", system)]
if ERA == "split":
    manager = Properties(session, SPLIT_TABLE, SPLIT_EXTRA)
    names.append(dbus.service.BusName(MGR, session))
elif ERA == "split-bare":
    manager = Properties(session, {OLD: SPLIT_TABLE[OLD]}, SPLIT_EXTRA)
    names.append(dbus.service.BusName(MGR, session))
elif ERA in ("manager", "manager-GPU"):
    manager = Properties(system, manager_table("GPU" if ERA == "manager-GPU" else "Gpu"))
    names.append(dbus.service.BusName(MGR, system))
elif ERA == "methods":
    manager = Methods2023(system)
    names.append(dbus.service.BusName(MGR, system))
elif ERA not in ("none", "unit-fails"):
    sys.exit("unknown era " + ERA)
if SYSTEMD_VERSION:
    systemd = Systemd(system)
    names.append(dbus.service.BusName("org.freedesktop.systemd1", system))
log("ready")
GLib.MainLoop().run()
