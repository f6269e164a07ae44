/* fleet-fake-deck: writes a fake Deck's system root for the fleet's
 * end-to-end test (test-fleet-e2e.py): `fleet-fake-deck lcd|oled DIR`.
 *
 * The trees are the deck tests' own (tests/test-deck-util.h: fake_deck(),
 * the LCD "Jupiter", and fake_galileo(), the OLED; tests/data/deck/README.md
 * says where each value comes from), so every sysfs file, binary
 * gpu_metrics table and EDID block follows the same upstream layouts.  Two
 * values are set here so the two Decks differ as a fleet's would: the host
 * name (deck-lcd / deck-oled, chosen) and the OLED's SteamOS release
 * (3.7.8, build 20250120.1, chosen; the LCD keeps 3.6.19). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-deck-util.h"

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "lcd") != 0 && strcmp(argv[1], "oled") != 0)) {
		fprintf(stderr, "usage: fleet-fake-deck lcd|oled DIR\n");
		return 2;
	}
	struct fake f;
	snprintf(f.root, sizeof f.root, "%s", argv[2]);
	fake_mkdirs(f.root);
	if (strcmp(argv[1], "lcd") == 0) {
		fake_deck(&f);
		fake_write(&f, "proc/sys/kernel/hostname", "deck-lcd\n");
	} else {
		fake_galileo(&f);
		fake_write(&f, "proc/sys/kernel/hostname", "deck-oled\n");
		fake_write(&f, "etc/os-release", "NAME=\"SteamOS\"\nPRETTY_NAME=\"SteamOS\"\n"
		                                 "VERSION_CODENAME=holo\nID=steamos\nID_LIKE=arch\n"
		                                 "VERSION_ID=3.7.8\nBUILD_ID=20250120.1\n");
	}
	return 0;
}
