/* collect-profile-private: the parsed profile's layout, shared by the
 * profile parser (collect-profile.c) and the log scanner (collect-log.c). */
#ifndef RXDECK_COLLECT_PROFILE_PRIVATE_H
#define RXDECK_COLLECT_PROFILE_PRIVATE_H

#include <regex.h>
#include <stdbool.h>

#include "collect-private.h"

enum collect_agg {
	AGG_COUNT,  /* count(): matched lines */
	AGG_SUM,    /* sum(x) */
	AGG_MEAN,   /* mean(x) */
	AGG_MIN,    /* min(x) */
	AGG_MAX,    /* max(x) */
	AGG_LAST,   /* last(x): the latest line's x */
	AGG_WMEAN,  /* wmean(x, w) = sum(x * w) / sum(w) */
	AGG_PER,    /* per(x, y, k) = k * sum(x) / sum(y) */
};

struct collect_capture {
	char *name;
	size_t group; /* 1-based ERE group number */
};

struct collect_pattern {
	char *name;
	char *regex;      /* the ERE handed to regcomp() */
	regex_t re;
	bool compiled;
	size_t ngroups;   /* all groups, named or not */
	struct collect_capture *captures;
	size_t ncaptures;
	size_t line;      /* where it is defined */
};

struct collect_metric_def {
	char *name;
	size_t pattern;   /* index into patterns */
	enum collect_agg agg;
	int arg[2];       /* capture indices of the pattern */
	double scale;     /* per()'s k */
	size_t line;
};

struct collect_profile {
	char *path;
	char *name;
	size_t name_line;
	bool timestamps;  /* strip and read the `[s.us] ` prefix */
	struct collect_pattern *patterns;
	size_t npatterns;
	struct collect_metric_def *metrics;
	size_t nmetrics;
};

#endif
