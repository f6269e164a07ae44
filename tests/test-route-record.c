/* test-route-record: the recorder: a real pad's events become a route file
 * that parses to the same events (deadzones, the value grid, 1 ms times,
 * the stop combination), and a recorded route played back and recorded
 * again gives the same events: event for event when each instant went out
 * in its own millisecond, and state for state against the frames' own
 * milliseconds when a held player sent several in one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test-pad-util.h"

#define T0 (1000LL * 1000000000LL) /* a CLOCK_MONOTONIC t0 for synthetic events */

static void feed(struct route_recorder *r, int64_t t_us, uint16_t type, uint16_t code, int32_t v)
{
	int64_t ns = T0 + t_us * 1000;
	struct input_event e = { .type = type, .code = code, .value = v };
	e.input_event_sec = ns / 1000000000LL;
	e.input_event_usec = (ns % 1000000000LL) / 1000;
	route_recorder_feed(r, &e);
}

static int syn(struct route_recorder *r, int64_t t_us)
{
	int64_t ns = T0 + t_us * 1000;
	struct input_event e = { .type = EV_SYN, .code = SYN_REPORT };
	e.input_event_sec = ns / 1000000000LL;
	e.input_event_usec = (ns % 1000000000LL) / 1000;
	return route_recorder_feed(r, &e);
}

/* Writes the recording and parses it back; the text goes to *text. */
static struct route *write_and_parse(struct route_recorder *r, const char *name, int64_t w0,
                                     int64_t w1, char **text)
{
	size_t len;
	FILE *f = open_memstream(text, &len);
	assert_int_equal(route_recorder_write(r, f, name, w0, w1, "a test\nof two lines"), 0);
	fclose(f);
	struct route *route = NULL;
	struct util_diag e;
	if (route_parse("rec.route", *text, len, NULL, &route, &e) != 0) {
		print_message("%s\n", *text);
		util_diag_print(&e, stderr);
		fail();
	}
	return route;
}

struct want {
	int64_t t;
	int type, code, value;
};

static void assert_events(const struct route *r, const struct want *w, size_t n_want,
                          const char *text)
{
	size_t n;
	const struct route_event *ev = route_events(r, &n);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].type != ROUTE_EVENT_KEY && ev[i].type != ROUTE_EVENT_ABS)
			continue;
		if (k >= n_want || ev[i].t_ms != w[k].t || (int)ev[i].type != w[k].type ||
		    ev[i].code != w[k].code || ev[i].value != w[k].value) {
			print_message("%s\nevent %zu: t=%lld type=%d code=%d value=%d\n", text, k,
			              (long long)ev[i].t_ms, ev[i].type, ev[i].code, ev[i].value);
			if (k < n_want)
				print_message("wanted t=%lld type=%d code=%d value=%d\n",
				              (long long)w[k].t, w[k].type, w[k].code, w[k].value);
			fail();
		}
		k++;
	}
	assert_int_equal(k, n_want);
}

static void test_record__a_deck_pad_becomes_a_route(void **state)
{
	(void)state;
	struct route_recorder *r;
	struct route_record_config cfg = { .t0_ns = T0 };
	assert_int_equal(route_recorder_create(&cfg, &r), 0);
	/* ranges as hid-steam gives them for the Deck's controller */
	route_recorder_set_axis(r, ABS_X, -32767, 32767);
	route_recorder_set_axis(r, ABS_Y, -32767, 32767);
	route_recorder_set_axis(r, ABS_RX, -32767, 32767);
	route_recorder_set_axis(r, ABS_RY, -32767, 32767);
	route_recorder_set_axis(r, ABS_HAT2Y, 0, 32767);
	route_recorder_set_axis(r, ABS_HAT2X, 0, 32767);

	feed(r, 1000400, EV_KEY, BTN_SOUTH, 1); /* 1.0004 s: rounds to 1000 ms */
	syn(r, 1000400);
	feed(r, 1199600, EV_KEY, BTN_SOUTH, 0); /* 1.1996 s: 1200 ms */
	syn(r, 1199600);
	feed(r, 1500000, EV_ABS, ABS_X, 3000); /* idle noise inside the deadzone */
	feed(r, 1500000, EV_ABS, ABS_Y, -2000);
	syn(r, 1500000);
	feed(r, 2000000, EV_ABS, ABS_X, 0);
	feed(r, 2000000, EV_ABS, ABS_Y, -32767); /* full forward */
	syn(r, 2000000);
	feed(r, 2000200, EV_ABS, ABS_Y, -32700); /* jitter, less than a step */
	syn(r, 2000200);
	feed(r, 2500000, EV_ABS, ABS_Y, -16384); /* half forward: -0.5 */
	syn(r, 2500000);
	feed(r, 2500200, EV_ABS, ABS_X, 9830); /* two changes in one ms: the last stays */
	syn(r, 2500200);
	feed(r, 2500400, EV_ABS, ABS_X, 13107); /* 0.4 */
	syn(r, 2500400);
	feed(r, 3000000, EV_ABS, ABS_Y, 500);
	feed(r, 3000000, EV_ABS, ABS_X, -800); /* back inside the deadzone: centred */
	syn(r, 3000000);
	feed(r, 4000000, EV_ABS, ABS_HAT2X, 25559); /* right trigger 0.78 */
	syn(r, 4000000);
	feed(r, 4500000, EV_ABS, ABS_HAT2X, 900); /* inside the trigger deadzone */
	syn(r, 4500000);
	feed(r, 5000000, EV_KEY, BTN_DPAD_UP, 1);
	syn(r, 5000000);
	feed(r, 5050000, EV_KEY, BTN_DPAD_LEFT, 1);
	syn(r, 5050000);
	feed(r, 5100000, EV_KEY, BTN_DPAD_UP, 0);
	feed(r, 5100000, EV_KEY, BTN_DPAD_LEFT, 0);
	syn(r, 5100000);
	feed(r, 5200000, EV_KEY, BTN_WEST, 1); /* held when recording stops */
	syn(r, 5200000);
	feed(r, 5900000, EV_KEY, BTN_SELECT, 1); /* the stop combination */
	assert_int_equal(syn(r, 5900000), 0);
	feed(r, 6000000, EV_KEY, BTN_START, 1);
	assert_int_equal(syn(r, 6000000), 1);
	feed(r, 6100000, EV_KEY, BTN_SOUTH, 1); /* after the end: ignored */
	assert_int_equal(syn(r, 6100000), 1);

	char *text;
	struct route *route = write_and_parse(r, "deck-walk", 0, 0, &text);
	assert_non_null(strstr(text, "# a test\n# of two lines\nroute deck-walk\n"));
	assert_non_null(strstr(text, "1s        press A 200ms\n"));
	assert_non_null(strstr(text, "2.5s      stick left 0.4 -0.5\n"));
	assert_non_null(strstr(text, "4s        trigger right 0.78\n"));
	assert_non_null(strstr(text, "5.05s     dpad up-left\n"));
	assert_null(strstr(text, "BACK"));
	assert_null(strstr(text, "START"));
	assert_string_equal(route_name(route), "deck-walk");
	assert_int_equal(route_duration_ms(route), 6000);
	int64_t a, b;
	route_window_ms(route, &a, &b);
	assert_int_equal(a, 0);
	assert_int_equal(b, 6000);
	static const struct want w[] = {
		{ 1000, ROUTE_EVENT_KEY, BTN_SOUTH, 1 },
		{ 1200, ROUTE_EVENT_KEY, BTN_SOUTH, 0 },
		{ 2000, ROUTE_EVENT_ABS, ABS_Y, -32768 },
		{ 2500, ROUTE_EVENT_ABS, ABS_X, 13107 },   /* 0.4 * 32767 */
		{ 2500, ROUTE_EVENT_ABS, ABS_Y, -16384 },  /* -0.5 * 32768 */
		{ 3000, ROUTE_EVENT_ABS, ABS_X, 0 },
		{ 3000, ROUTE_EVENT_ABS, ABS_Y, 0 },
		{ 4000, ROUTE_EVENT_ABS, ABS_RZ, 199 },    /* 0.78 * 255 */
		{ 4500, ROUTE_EVENT_ABS, ABS_RZ, 0 },
		{ 5000, ROUTE_EVENT_ABS, ABS_HAT0Y, -1 },
		{ 5050, ROUTE_EVENT_ABS, ABS_HAT0X, -1 },
		{ 5100, ROUTE_EVENT_ABS, ABS_HAT0X, 0 },
		{ 5100, ROUTE_EVENT_ABS, ABS_HAT0Y, 0 },
		{ 5200, ROUTE_EVENT_KEY, BTN_WEST, 1 },
		{ 6000, ROUTE_EVENT_KEY, BTN_WEST, 0 },
	};
	assert_events(route, w, sizeof w / sizeof *w, text);
	assert_int_equal(route_recorder_action_count(r), 10);
	route_free(route);
	free(text);
	route_recorder_destroy(r);
}

static void test_record__presses_shorter_than_a_millisecond(void **state)
{
	(void)state;
	struct route_recorder *r;
	struct route_record_config cfg = { .t0_ns = T0, .stop_buttons = 1u << PAD_BUTTON_GUIDE };
	assert_int_equal(route_recorder_create(&cfg, &r), 0);
	feed(r, 100000, EV_KEY, BTN_EAST, 1);
	syn(r, 100000);
	feed(r, 100300, EV_KEY, BTN_EAST, 0); /* the same millisecond */
	syn(r, 100300);
	feed(r, 100600, EV_KEY, BTN_EAST, 1); /* and again the next */
	syn(r, 100600);
	feed(r, 100700, EV_KEY, BTN_EAST, 0);
	syn(r, 100700);
	feed(r, 300000, EV_KEY, BTN_START, 1); /* START alone does not stop now */
	assert_int_equal(syn(r, 300000), 0);
	feed(r, 300000, EV_KEY, BTN_START, 0);
	syn(r, 300500);
	route_recorder_finish(r, T0 + 400000000LL);
	char *text;
	struct route *route = write_and_parse(r, "taps", 0, 0, &text);
	static const struct want w[] = {
		{ 100, ROUTE_EVENT_KEY, BTN_EAST, 1 },
		{ 101, ROUTE_EVENT_KEY, BTN_EAST, 0 },
		{ 102, ROUTE_EVENT_KEY, BTN_EAST, 1 },
		{ 103, ROUTE_EVENT_KEY, BTN_EAST, 0 },
		{ 300, ROUTE_EVENT_KEY, BTN_START, 1 },
		{ 301, ROUTE_EVENT_KEY, BTN_START, 0 },
	};
	assert_events(route, w, sizeof w / sizeof *w, text);
	assert_int_equal(route_duration_ms(route), 400);
	route_free(route);
	free(text);
	route_recorder_destroy(r);
}

static void test_record__window_must_fit(void **state)
{
	(void)state;
	struct route_recorder *r;
	struct route_record_config cfg = { .t0_ns = T0 };
	assert_int_equal(route_recorder_create(&cfg, &r), 0);
	route_recorder_finish(r, T0 + 5000000000LL);
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(route_recorder_write(r, f, "w", 1000, 6000, NULL), -EINVAL);
	assert_int_equal(route_recorder_write(r, f, "w", 3000, 2000, NULL), -EINVAL);
	assert_int_equal(route_recorder_write(r, f, "w", 1000, 4000, NULL), 0);
	fclose(f);
	assert_non_null(strstr(text, "duration 5s\nwindow 1s 4s\n"));
	free(text);
	route_recorder_destroy(r);

	struct route_record_config bad = { .step = 0.7 };
	assert_int_equal(route_recorder_create(&bad, &r), -EINVAL);
}

/* A stop combination the round trip never holds. */
#define NEVER_STOP ((1u << PAD_BUTTON_LS) | (1u << PAD_BUTTON_RS) | (1u << PAD_BUTTON_GUIDE))

static bool is_input(const struct route_event *e)
{
	return e->type == ROUTE_EVENT_KEY || e->type == ROUTE_EVENT_ABS;
}

/* An instant of a route's input, the events one frame carries: moves *i
 * to its first KEY or ABS event and returns the index past its last (the
 * events of the same millisecond, with any other kind among them, which
 * is_input() tells apart); returns *i, equal to n, when none is left. */
static size_t next_instant(const struct route_event *ev, size_t n, size_t *i)
{
	while (*i < n && !is_input(&ev[*i]))
		(*i)++;
	size_t end = *i;
	while (end < n && (end == *i || ev[end].t_ms == ev[*i].t_ms || !is_input(&ev[end])))
		end++;
	return end;
}

/* The latest any frame the game received came against its instant's
 * schedule: frame k after the start carries the route's k-th instant (the
 * player sends one frame an instant; the neutral one at the end is past
 * them).  Measured from the frames' own stamps, so it bounds what the
 * recorder saw however late a busy machine made the player. */
static int64_t frames_late_max(const struct route *route, int64_t t0, const int64_t *stamps,
                               size_t n_frames)
{
	size_t n;
	const struct route_event *ev = route_events(route, &n);
	int64_t late_max = 0;
	size_t frame = 0;
	for (size_t i = 0; frame < n_frames;) {
		size_t end = next_instant(ev, n, &i);
		if (end == i)
			break;
		int64_t late = stamps[frame++] - (t0 + ev[i].t_ms * 1000000LL);
		if (late > late_max)
			late_max = late;
		i = end;
	}
	return late_max;
}

/* Feeds the recorder every frame that comes within timeout_ms of the one
 * before; the first instants frames' stamps go to stamps. */
static void take_frames(int fd, int timeout_ms, struct route_recorder *rec, int64_t *stamps,
                        size_t *n_frames, size_t instants)
{
	struct input_event in[PAD_FRAME_MAX];
	int k;
	while ((k = tu_read_frame(fd, in, PAD_FRAME_MAX, timeout_ms, NULL)) > 0) {
		for (int i = 0; i < k; i++)
			route_recorder_feed(rec, &in[i]);
		if (*n_frames < instants)
			stamps[(*n_frames)++] = tu_ev_ns(&in[k - 1]);
	}
	assert_int_equal(k, -ETIMEDOUT);
}

/* Plays route into a socket pad and records what a game receives; the
 * latest frame's lateness against its schedule, as the game received it,
 * goes to *late_max_ns, and the millisecond the recorder gave each
 * instant's frame (its stamp from the start, rounded, never before the
 * frame before: route-record.c's SYN_REPORT) to *sent_ms (n_sent of them,
 * the caller frees). */
static struct route *play_and_record(const struct route *route, char **text, int64_t *late_max_ns,
                                     int64_t **sent_ms, size_t *n_sent)
{
	char spec[256], path[256];
	tu_socket_spec("route-record", spec, sizeof spec, path, sizeof path);
	struct pad *pad;
	struct route_player *pl;
	assert_int_equal(pad_create(spec, &pad), 0);
	assert_int_equal(route_player_create(route, pad, &pl), 0);
	int fd;
	assert_int_equal(pad_socket_connect(path, &fd), 0);
	struct input_event in[PAD_FRAME_MAX];
	assert_true(tu_read_frame(fd, in, PAD_FRAME_MAX, 2000, NULL) > 0);

	assert_int_equal(route_player_arm(pl), 0);
	int64_t t0 = tu_now_ns() + 200000000LL;
	struct route_recorder *rec;
	struct route_record_config cfg = { .t0_ns = t0, .stop_buttons = NEVER_STOP };
	assert_int_equal(route_recorder_create(&cfg, &rec), 0);
	for (int a = 0; a < PAD_AXIS_COUNT; a++)
		route_recorder_set_axis(rec, pad_axes[a].code, pad_axes[a].min, pad_axes[a].max);
	assert_int_equal(route_player_start(pl, t0), 0);
	struct route_notice no;
	size_t n_frames = 0, instants = route_instant_count(route);
	int64_t *stamps = calloc(instants + 1, sizeof *stamps);
	assert_non_null(stamps);
	for (;;) {
		take_frames(fd, 50, rec, stamps, &n_frames, instants);
		int r = route_player_next(pl, &no);
		if (r == 0 && no.type != ROUTE_NOTICE_SHOT && no.type != ROUTE_NOTICE_MARK)
			break;
	}
	assert_int_equal(no.type, ROUTE_NOTICE_END);
	/* the playing process has ended, so every frame it sent is in the
	 * socket: the last ones may have come after the read above gave up
	 * waiting (a busy machine can hold this process between the two) */
	take_frames(fd, 0, rec, stamps, &n_frames, instants);
	route_recorder_finish(rec, t0 + route_duration_ms(route) * 1000000LL);
	int64_t w0, w1;
	route_window_ms(route, &w0, &w1);
	struct route *again = write_and_parse(rec, route_name(route), w0, w1, text);
	struct route_player_stats st;
	assert_int_equal(route_player_stats(pl, &st), 0);
	assert_int_equal(st.played, st.instants);
	assert_int_equal(n_frames, instants);
	*late_max_ns = frames_late_max(route, t0, stamps, n_frames);
	for (size_t k = 0; k < n_frames; k++) {
		int64_t ns = stamps[k] - t0, ms = ns <= 0 ? 0 : (ns + 500000) / 1000000;
		stamps[k] = k > 0 && ms < stamps[k - 1] ? stamps[k - 1] : ms;
	}
	*sent_ms = stamps;
	*n_sent = n_frames;
	route_recorder_destroy(rec);
	route_player_destroy(pl);
	pad_destroy(pad);
	close(fd);
	return again;
}

/* The pad state a route's events have set: every key and axis, in
 * order.  Both routes start from the same neutral pad. */
struct pad_state {
	int32_t key[KEY_CNT];
	int32_t abs[ABS_CNT];
};

static void state_apply(struct pad_state *st, const struct route_event *e)
{
	if (e->type == ROUTE_EVENT_KEY && e->code < KEY_CNT)
		st->key[e->code] = e->value;
	else if (e->type == ROUTE_EVENT_ABS && e->code < ABS_CNT)
		st->abs[e->code] = e->value;
}

/* What the game received, recorded: a busy machine can hold the player
 * past several instants, which then go out together in one millisecond,
 * and the recorder rightly makes one instant of them (the last value of
 * each axis; a key pressed and released among them a 1 ms press).  So
 * the recording is checked against the frames' own milliseconds: after
 * each millisecond's frames, the recorded route's state is the played
 * route's after the last of them, and it has no input event at any other
 * time.  Returns how many instants went out merged with one before. */
static size_t check_as_received(const struct route *first, const struct route *second,
                                const int64_t *sent_ms, size_t n_sent)
{
	static struct pad_state s1, s2, before;
	memset(&s1, 0, sizeof s1);
	memset(&s2, 0, sizeof s2);
	size_t n1, n2, i1 = 0, i2 = 0, k = 0, merged = 0;
	const struct route_event *e1 = route_events(first, &n1);
	const struct route_event *e2 = route_events(second, &n2);
	while (k < n_sent) {
		int64_t ms = sent_ms[k];
		before = s1;
		bool changed[KEY_CNT] = { false };
		/* the played instants that went out in this millisecond */
		for (size_t group = 0; k < n_sent && sent_ms[k] == ms; k++, group++) {
			size_t end = next_instant(e1, n1, &i1);
			assert_true(i1 < n1);
			for (; i1 < end; i1++) {
				if (!is_input(&e1[i1]))
					continue;
				if (e1[i1].type == ROUTE_EVENT_KEY && e1[i1].code < KEY_CNT &&
				    e1[i1].value != s1.key[e1[i1].code])
					changed[e1[i1].code] = true;
				state_apply(&s1, &e1[i1]);
			}
			merged += group > 0;
		}
		/* the recording up to this millisecond: nothing in between */
		for (; i2 < n2 && e2[i2].t_ms <= ms; i2++) {
			if (is_input(&e2[i2]) && e2[i2].t_ms != ms)
				fail_msg("recorded event %zu at %lld ms, when no frame was sent", i2,
				         (long long)e2[i2].t_ms);
			state_apply(&s2, &e2[i2]);
		}
		for (unsigned c = 0; c < ABS_CNT; c++)
			if (s1.abs[c] != s2.abs[c])
				fail_msg("axis 0x%x is %d after the frames sent at %lld ms, recorded as %d", c,
				         s1.abs[c], (long long)ms, s2.abs[c]);
		for (unsigned c = 0; c < KEY_CNT; c++) {
			bool pulse = changed[c] && s1.key[c] == before.key[c] && !before.key[c];
			if (!pulse && s1.key[c] != s2.key[c])
				fail_msg("key 0x%x is %d after the frames sent at %lld ms, recorded as %d", c,
				         s1.key[c], (long long)ms, s2.key[c]);
			if (pulse && !s2.key[c])
				fail_msg("key 0x%x, pressed and released among the frames sent at %lld ms, "
				         "is not recorded as pressed there", c, (long long)ms);
		}
		/* a press and its release in one millisecond: released 1 ms on */
		for (; i2 < n2 && e2[i2].t_ms == ms + 1 && (k == n_sent || sent_ms[k] > ms + 1); i2++) {
			if (is_input(&e2[i2]) && !(e2[i2].type == ROUTE_EVENT_KEY && e2[i2].value == 0 &&
			                           e2[i2].code < KEY_CNT && changed[e2[i2].code] &&
			                           !before.key[e2[i2].code]))
				fail_msg("recorded event %zu at %lld ms, when no frame was sent", i2,
				         (long long)e2[i2].t_ms);
			state_apply(&s2, &e2[i2]);
		}
	}
	for (; i2 < n2; i2++)
		if (is_input(&e2[i2]))
			fail_msg("recorded event %zu at %lld ms, after the last frame", i2,
			         (long long)e2[i2].t_ms);
	return merged;
}

static int cmp_event(const void *x, const void *y)
{
	const struct route_event *a = x, *b = y;
	if (a->t_ms != b->t_ms)
		return a->t_ms < b->t_ms ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return (a->code > b->code) - (a->code < b->code);
}

/* Every instant had a frame of its own: the recording has the played
 * route's events, each instant's as a set, each at or after its time by
 * at most slack_ms. */
static void check_event_for_event(const struct route *first, const struct route *second,
                                  const char *text1, const char *text2, int64_t slack_ms,
                                  int64_t late_max_ns)
{
	size_t n1, n2;
	const struct route_event *ea = route_events(first, &n1);
	const struct route_event *eb = route_events(second, &n2);
	/* the order of events within one instant carries no meaning (they
	 * reach the game as one frame): compare each instant as a set */
	struct route_event *a = malloc((n1 + 1) * sizeof *a), *b = malloc((n2 + 1) * sizeof *b);
	memcpy(a, ea, n1 * sizeof *a);
	memcpy(b, eb, n2 * sizeof *b);
	qsort(a, n1, sizeof *a, cmp_event);
	qsort(b, n2, sizeof *b, cmp_event);
	if (n1 != n2)
		fprintf(stderr, "first:\n%s\nsecond:\n%s\n", text1, text2);
	assert_int_equal(n1, n2);
	assert_true(n1 > 60);
	int exact = 0;
	for (size_t i = 0; i < n1; i++) {
		assert_int_equal(a[i].type, b[i].type);
		assert_int_equal(a[i].code, b[i].code);
		assert_int_equal(a[i].value, b[i].value);
		/* times come back through the clock: within the player's lateness */
		if (b[i].t_ms < a[i].t_ms || b[i].t_ms > a[i].t_ms + slack_ms)
			fail_msg("event %zu at %lld ms, recorded at %lld ms (frames came up to "
			         "%.3f ms late)", i, (long long)a[i].t_ms, (long long)b[i].t_ms,
			         late_max_ns / 1e6);
		exact += b[i].t_ms == a[i].t_ms;
	}
	print_message("%d of %zu events at the same millisecond\n", exact, n1);
	free(a);
	free(b);
}

static void test_record__a_played_route_records_the_same_events(void **state)
{
	(void)state;
	/* a recording made from synthetic input */
	struct route_recorder *r;
	struct route_record_config cfg = { .t0_ns = T0, .stop_buttons = NEVER_STOP };
	assert_int_equal(route_recorder_create(&cfg, &r), 0);
	for (int a = 0; a < PAD_AXIS_COUNT; a++)
		route_recorder_set_axis(r, pad_axes[a].code, pad_axes[a].min, pad_axes[a].max);
	for (int i = 0; i < 20; i++) {
		int64_t t = 50000 + i * 37000;
		feed(r, t, EV_ABS, ABS_X, (i * 5000) % 65536 - 32768);
		feed(r, t, EV_ABS, ABS_RY, i % 3 ? 20000 : -20000);
		feed(r, t, EV_KEY, pad_buttons[i % PAD_BUTTON_COUNT].code, i % 2 == 0);
		feed(r, t, EV_ABS, ABS_Z, (i * 40) % 256);
		feed(r, t, EV_ABS, ABS_HAT0X, i % 3 - 1);
		syn(r, t);
	}
	route_recorder_finish(r, T0 + 900000000LL);
	char *text1;
	struct route *first = write_and_parse(r, "roundtrip", 0, 0, &text1);
	route_recorder_destroy(r);

	char *text2;
	int64_t late_max_ns, *sent_ms;
	size_t n_sent;
	struct route *second = play_and_record(first, &text2, &late_max_ns, &sent_ms, &n_sent);
	if (getenv("RXDECK_TEST_VERBOSE"))
		fprintf(stderr, "first:\n%s\nsecond:\n%s\n", text1, text2);
	size_t merged = check_as_received(first, second, sent_ms, n_sent);
	free(sent_ms);
	/* a frame is stamped when it is sent: each event comes back at or
	 * after its schedule, late by at most the latest frame the game
	 * received, plus the rounding to a millisecond */
	int64_t slack_ms = (late_max_ns + 500000) / 1000000;
	if (merged == 0)
		check_event_for_event(first, second, text1, text2, slack_ms, late_max_ns);
	else /* the player was held: what the game got is checked above */
		print_message("%zu of %zu instants went out in the millisecond of the one before "
		              "(the player was held up to %.3f ms); the recording is what was sent\n",
		              merged, n_sent, late_max_ns / 1e6);
	/* the duration is the end or the last event, whichever is later: it
	 * comes back as late as that event may (a release at the end, recorded
	 * 1 ms late at a load average of 13, made 900 ms into 901) */
	int64_t d1 = route_duration_ms(first), d2 = route_duration_ms(second);
	if (d2 < d1 || d2 > d1 + slack_ms)
		fail_msg("duration %lld ms, recorded as %lld ms (frames came up to %.3f ms late)",
		         (long long)d1, (long long)d2, late_max_ns / 1e6);
	route_free(first);
	route_free(second);
	free(text1);
	free(text2);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record__a_deck_pad_becomes_a_route),
		cmocka_unit_test(test_record__presses_shorter_than_a_millisecond),
		cmocka_unit_test(test_record__window_must_fit),
		cmocka_unit_test(test_record__a_played_route_records_the_same_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
