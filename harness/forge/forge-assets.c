/* forge-assets: the pieces of attaching a campaign's plots to its comment
 * that need no connection: reading the download URL out of Forgejo's
 * answer to an asset upload, and the summary body that shows the uploaded
 * plots.  The uploads themselves are forge.c's (after the comment is sent)
 * over forge-http.c's multipart request. */
#include "forge-private.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER_START "<!-- rxdeck-summary "

char *forge_asset_url(const char *json)
{
	json_t *j = json ? json_loads(json, 0, NULL) : NULL;
	const char *u = j ? json_string_value(json_object_get(j, "browser_download_url")) : NULL;
	char *s = NULL;
	/* only a web URL goes into the body: nothing that could break the
	 * Markdown image around it */
	if (u && (strncmp(u, "https://", 8) == 0 || strncmp(u, "http://", 7) == 0) &&
	    !strpbrk(u, " ()<>\n\r\t"))
		s = strdup(u);
	json_decref(j);
	return s;
}

int forge_body_with_plots(const char *body, const char *const *titles, const char *const *urls,
                          size_t n, char **out)
{
	const char *marker = NULL;
	for (const char *q = body; (q = strstr(q, MARKER_START)); q++)
		marker = q; /* the last one is the summary's */
	size_t head = marker ? (size_t)(marker - body) : strlen(body);
	while (head && body[head - 1] == '\n')
		head--;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		return -ENOMEM;
	fwrite(body, 1, head, f);
	fputs("\n\nPlots:\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("\n![", f);
		for (const char *t = titles[i]; *t; t++)
			if (!strchr("[]\\\n\r", *t))
				fputc(*t, f);
		fprintf(f, "](%s)\n", urls[i]);
	}
	if (marker)
		fprintf(f, "\n%s", marker);
	if (fclose(f) != 0) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}
