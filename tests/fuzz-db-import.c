/* Fuzz target: db_import() of arbitrary bytes into an in-memory
 * database.  It must refuse bad input with a message and never crash, and
 * whatever it accepts must export again. */
#include "results-db/db.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct db *db;
	if (db_open(":memory:", &db) != 0)
		abort();
	char *copy = malloc(size + 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = '\0';
	FILE *in = fmemopen(copy, size ? size : 1, "r");
	if (!in)
		abort();
	size_t n = 0;
	int err = db_import(db, in, "fuzz", &n);
	fclose(in);
	if (err < 0 && db_errmsg(db)[0] == '\0')
		abort(); /* a refusal always says why */
	if (err == 0) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		if (!f || db_export(db, 0, f) != 0)
			abort();
		fclose(f);
		free(out);
	}
	db_close(db);
	free(copy);
	return 0;
}
