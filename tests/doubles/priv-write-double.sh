#!/bin/bash
# Test double for `pkexec /usr/bin/steamos-polkit-helpers/steamos-priv-write
# PATH VALUE`, run by rxdeck in its place through $RXDECK_PRIV_WRITE.
#
# It follows usr/bin/steamos-polkit-helpers/steamos-priv-write of Valve's
# jupiter-hw-support at tag jupiter-3.7-20250521.2 (the same file since
# jupiter-20240624.1): PATH is made absolute without resolving links
# (realpath -s), compared with the helper's list of shell patterns, and on
# a match VALUE is written with printf "%s" (no newline, a truncating
# redirect: one write per call) and "commit: VALUE -> PATH" logged, exit 0;
# anything else is declined ("decline: VALUE -> PATH" logged, exit 1).  The
# patterns used by rxdeck are /sys/class/drm/card*/device/
# power_dpm_force_performance_level and pp_od_clk_voltage, and
# /sys/class/hwmon/hwmon*/power*_cap; the rest of the list (backlight, ALS,
# LEDs, drm_dp_aux0) is kept so a wrong path is declined as upstream does.
#
# Differences, for the test: a command to pp_od_clk_voltage is appended
# (with a newline) so the fake file keeps its OD_RANGE table, as the
# kernel's attribute does after a write; PATH, a host path, is written under
# $RXDECK_DECK_ROOT (the fake tree); the log goes to
# $PRIV_WRITE_DOUBLE_LOG instead of the journal (systemd-cat); the chgrp
# deck / chmod g+w after a commit are left out (no deck group here); pkexec
# is not run (the real helper re-executes itself through pkexec when not
# root).  realpath -m, so the host path need not exist on this machine.
set -euo pipefail
shopt -s nullglob

WRITE_PATH=$(realpath -s -m -- "$1")
WRITE_VALUE="$2"
ROOT="${RXDECK_DECK_ROOT:?the double writes under RXDECK_DECK_ROOT}"

log() {
	printf "%s\n" "$*"
	if [ -n "${PRIV_WRITE_DOUBLE_LOG:-}" ]; then
		printf "%s\n" "$*" >>"$PRIV_WRITE_DOUBLE_LOG"
	fi
}

# Matches the host path against a pattern the way the helper globs it:
# here the candidates are globbed under the fake root.
matches() {
	local path="$1" pattern="$2" IFS=
	local candidates=($ROOT$pattern)
	for candidate in "${candidates[@]}"; do
		if [[ "$ROOT$path" == "$candidate" ]]; then
			return 0
		fi
	done
	return 1
}

commit() {
	if [ -n "$WRITE_VALUE" ]; then
		log "commit: $WRITE_VALUE -> $WRITE_PATH"
		if [[ "$WRITE_PATH" == */pp_od_clk_voltage ]]; then
			# the fake file keeps its table, as the kernel's attribute does
			printf "%s\n" "$WRITE_VALUE" >>"$ROOT$WRITE_PATH"
		else
			printf "%s" "$WRITE_VALUE" >"$ROOT$WRITE_PATH"
		fi
	fi
	exit 0
}

log "checking: $WRITE_PATH"
for pattern in "/sys/class/backlight/*/brightness" "/dev/drm_dp_aux0" \
	"/sys/class/drm/card*/device/power_dpm_force_performance_level" \
	"/sys/class/drm/card*/device/pp_od_clk_voltage" \
	"/sys/class/hwmon/hwmon*/power*_cap" \
	"/sys/devices/platform/*/*/*/iio:device*/in_illuminance_integration_time" \
	"/sys/devices/*/*/*/*/hwmon/hwmon*/led_brightness" \
	"/sys/devices/*/*/*/*/hwmon/hwmon*/content_adaptive_brightness" \
	"/sys/devices/platform/*/i2c-2/i2c-*/brightness" \
	"/sys/devices/platform/*/i2c-2/i2c-*/bmode" \
	"/sys/class/leds/status:white/led_brightness_multiplier"; do
	if matches "$WRITE_PATH" "$pattern"; then
		commit
	fi
done
log "decline: $WRITE_VALUE -> $WRITE_PATH"
exit 1
