/* report-across: campaigns of one plan run on several hosts (a fleet of
 * Decks) compared as one: `rxdeck report --across` and the fleet's forge
 * summary (`rxdeck post --across`).
 *
 * For each arm against the baseline: each device's verdict side by side,
 * each device's host facts in the header (model, SteamOS, kernel, Mesa,
 * GPU level and TDP in force, partial or not), and, for every primary
 * metric, whether the arm's effect is the same on every device: the
 * device x arm interaction of stats-across.h.  docs/fleet.md describes it.
 */
#ifndef RXDECK_REPORT_ACROSS_H
#define RXDECK_REPORT_ACROSS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/*
 * The campaigns names[0..n) stand for: each name's campaign and every
 * campaign named NAME@HOST (the host-qualified copies 'rxdeck db import'
 * makes when several Decks' campaigns share a name), in database order,
 * each once.  *ids is malloc'd.  Returns 0; -ENOENT when a name matches
 * nothing; -EINVAL when fewer than two campaigns match (messages in
 * errmsg); -ENOMEM.
 */
int report_across_resolve(struct db *db, char *const *names, size_t n, int64_t **ids,
                          size_t *n_ids, char *errmsg, size_t errmsg_size);

/*
 * Writes the comparison of the campaigns ids[0..n) (at least two, of one
 * plan: the same plan text and arms) in opts->format: Markdown, JSON or
 * HTML (CSV: -EINVAL).  Returns 0; -EINVAL for campaigns of different
 * plans or arms, -ENOENT / -ENODATA as report_print(); -EIO; -ENOMEM; the
 * reason in opts->errmsg.
 */
int report_across_print(struct db *db, const int64_t *ids, size_t n,
                        const struct report_options *opts, FILE *out);

/* The forge comment's Markdown: the same as report_across_print() in
 * Markdown, with a smaller title. */
int report_across_summary_print(struct db *db, const int64_t *ids, size_t n,
                                const struct report_options *opts, FILE *out);

#endif
