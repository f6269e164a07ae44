#!/usr/bin/env bash
# mutate.sh: breaks librxvk one rule at a time and shows that a test catches
# each break.  For every mutant it edits one source file (an exact text
# replacement), builds the test that guards the rule in its own build folder,
# runs it on lavapipe with the validation layer, expects it to FAIL, and puts
# the file back.  Prints one line a mutant and a summary; exits 1 if any
# mutant survived or did not apply.
#
#   tests/mutate.sh [MUTANT-NAME...]     (from the top of the tree; all by default)
#
# It works on a copy of the tree (MUTATE_DIR, default /tmp/rxdeck-mutate) and
# rebuilds librxvk once a mutant, so it takes minutes: it is run by hand, not
# in CI (docs/renderer.md, "Mutants").
set -uo pipefail

top=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "mutate: run inside the rxdeck tree" >&2; exit 2; }
# the mutants are made in a copy of the tree's files (as they are now, not
# committed ones), never in the tree itself
work=${MUTATE_DIR:-/tmp/rxdeck-mutate}
mkdir -p "$work" || exit 2
(cd "$top" && git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T -) |
	(cd "$work" && tar -xmf -) || { echo "mutate: cannot copy the tree to $work" >&2; exit 2; }
cd "$work"
build=build
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" --buildtype=debugoptimized -Dtests=enabled -Dwerror=false >/dev/null ||
		{ echo "mutate: cannot configure $work/$build" >&2; exit 2; }
fi
export RX_VK_DEVICE=${RX_VK_DEVICE:-llvmpipe} RX_VK_VALIDATION=1

want=("$@")
caught=0 missed=0 broken=0
restore=""
trap '[ -n "$restore" ] && cp "$restore" "${restore%.mutate-orig}" && rm -f "$restore"' EXIT

# mutant NAME FILE TEST TEXT REPLACEMENT   (\n and \t in TEXT and REPLACEMENT)
mutant() {
	local name=$1 file=$2 test=$3 text=$4 repl=$5
	local args=()
	# a *-threads test runs its rules with parts on two recording threads
	[[ $test == *-threads ]] && args=(--threads 2)
	if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then
		return
	fi
	cp "$file" "$file.mutate-orig"
	restore="$file.mutate-orig"
	if ! python3 - "$file" "$text" "$repl" <<'EOF'
import sys
path, text, repl = sys.argv[1], sys.argv[2], sys.argv[3]
unesc = lambda s: s.replace('\\n', '\n').replace('\\t', '\t')
text, repl = unesc(text), unesc(repl)
src = open(path).read()
if src.count(text) != 1:
    sys.exit(1)
open(path, 'w').write(src.replace(text, repl))
EOF
	then
		echo "mutant $name: DID NOT APPLY (its text is not in $file exactly once)"
		broken=$((broken + 1))
	elif ! ninja -C "$build" "renderer/test-$test" >"$build/mutate-$name.build.log" 2>&1; then
		echo "mutant $name: DOES NOT BUILD (see $build/mutate-$name.build.log)"
		broken=$((broken + 1))
	elif timeout 300 "$build/renderer/test-$test" "${args[@]}" >"$build/mutate-$name.log" 2>&1; then
		echo "mutant $name: MISSED by test-$test"
		missed=$((missed + 1))
	else
		local failed
		failed=$(grep -E '^\[  (FAILED|ERROR) +\] [a-z]' "$build/mutate-$name.log" | grep -v 'test(s)' |
		         sed -E 's/^\[ *[A-Z]+ *\] //' | sort -u | head -3 | tr '\n' ' ')
		echo "mutant $name: caught by test-$test${failed:+ (${failed% })}"
		caught=$((caught + 1))
	fi
	cp "$file.mutate-orig" "$file"
	rm -f "$file.mutate-orig"
	restore=""
}

rb=renderer/src/readback.c rp=renderer/src/replay.c rc=renderer/src/record.c
mutant cpu-wrote-never-stales $rb rxvk-hold \
	'\trxvk_replay_cpu_wrote_locked(rx); /* targets over the CPU'"'"'s bytes reload them */\n' ''
mutant read-waits-for-recording $rb rxvk-marker \
	'\tif (!d->early || rx->rb->diag.on) {' '\tif (1) {'
mutant marker-on-bytes-not-pages $rb rxvk-marker \
	'\tif (e->marks) {\n\t\tlo = lo' '\tif (0) {\n\t\tlo = lo'
mutant marker-first-not-newest $rb rxvk-marker \
	'\t\t\telse if (e->marker[pg] > marker)' '\t\t\telse if (!marker)'
mutant late-rule-after-diagnostics $rb rxvk-readback \
	'\tif (rx->set.cfg.readback_late == RXVK_LATE_NEWEST && d->newest == rx->sub_count) {' \
	'\tif (!rx->rb->diag.on && rx->set.cfg.readback_late == RXVK_LATE_NEWEST && d->newest == rx->sub_count) {'
mutant early-read-waits-for-whole $rb rxvk-readback \
	'\t\tif (known && part) {' '\t\tif (0 && known && part) {'
mutant pending-read-released-at-once $rb rxvk-readback \
	'\tif (rx->set.cfg.readback_late == RXVK_LATE_NEWEST && d->newest == rx->sub_count) {' \
	'\tif (d->newest == rx->sub_count) {'
mutant large-write-not-noted $rb rxvk-readback \
	'\t\tif (early && (w->in_place || rx->rb->early.marks))' \
	'\t\tif (early && (w->in_place || rx->rb->early.marks) && w->size_B <= MIRROR_BLOCK_B)'
mutant span-open-on-failure $rp rxvk-rollback \
	'\tsub_slot(rx, rec->sub)->last_value = rx->next_value;' '\tif (rc == 0)\n\t\tsub_slot(rx, rec->sub)->last_value = rx->next_value;'
mutant capture-not-undone $rp rxvk-rollback \
	'\trxvk_capture_undo(rx, job);\n' ''
mutant held-frame-not-undone $rp rxvk-hold \
	'\tsize_t n = rxvk_hold_part_failed(rx, job->value, addrs, MAX_TARGETS);' '\tsize_t n = 0;\n\t(void)addrs;'
mutant signal-result-ignored $rc rxvk-rollback \
	'\tif (r != VK_SUCCESS) {\n\t\t/* readers' '\tif (0) {\n\t\t/* readers'
mutant held-frame-not-written-in-stream $rp rxvk-hold \
	'\t\tif ((rc = frame_writeback(rx, rec, snapshot, &f)) < 0)\n\t\t\treturn rc;\n' '\t\t(void)snapshot;\n'
mutant mirror-copies-unmerged $rp rxvk-readback \
	'\t\tif (out && v[out - 2] + v[out - 1] >= at) {' '\t\tif (0) {'
mutant evicted-notes-kept $rb rxvk-readback \
	'\t\tif (!page_tracked_locked(rx, pg)) {\n\t\t\trx->rb->early.sub[pg] = 0;' '\t\tif (0) {\n\t\t\trx->rb->early.sub[pg] = 0;'
mutant guard-while-device-touches renderer/src/hold.c rxvk-hold \
	'\t\tint rc = pages_quiet(rx, first, end, rx->mirrored);' '\t\tint rc = 0;'
mutant import-self-test-timed-on-a-cpu renderer/src/memory.c rxvk-hold \
	'bool slow = rx->info.cpu ? hook && !strcmp(hook, "slow") : *out_ns > SELF_TEST_LIMIT_NS;' \
	'bool slow = *out_ns > SELF_TEST_LIMIT_NS;'
mutant marker-mirror-writeback-left-out $rp rxvk-marker \
	'\tif (rec->copies.n) {' '\tif (0) {'
mutant marker-mirror-written-back-twice $rp rxvk-marker \
	'\t/* what is left is written back at the part'"'"'s end */\n' '\treturn 0;\n'
mutant marker-mirror-unwritten-page-marked $rb rxvk-marker \
	'\t\t\tif (e->marker && e->marker[pg] && e->sub[pg] == rx->page_writer[pg] &&\n\t\t\t    e->part[pg] == rx->page_final[pg] && page_tracked_locked(rx, pg)) {' \
	'\t\t\tif (e->marker) {'

mutant marker-event-reused-unreset $rb rxvk-reuse \
	'\tif (m->seq_of[slot])\n\t\trc = vk_check(rx, vkResetEvent' '\tif (0)\n\t\trc = vk_check(rx, vkResetEvent'
mutant current-target-not-reloaded $rp rxvk-reuse \
	'\tif (t->format != RXVK_FORMAT_DEPTH && !t->image_valid && !t->pending) {\n\t\tend_rendering(rx, rec);' \
	'\tif (0) {\n\t\tend_rendering(rx, rec);'
mutant failed-load-left-valid $rp rxvk-reuse \
	'\t\tif (t->load_value == job->value)\n\t\t\tt->image_valid = false;\n' ''
mutant chunk-reset-before-its-parts-ran $rc rxvk-reuse \
	'VkResult res = vkWaitSemaphores(rx->device, &wi, slice);' 'VkResult res = VK_SUCCESS;\n\t\t\t(void)wi, (void)slice;'
mutant chunk-taken-before-reset $rc rxvk-reuse \
	'\tif (!c || c->used == CHUNK_CMDS) {\n\t\tpthread_mutex_lock' \
	'\tif (c && c->used == CHUNK_CMDS)\n\t\tc->used = 0;\n\tif (!c) {\n\t\tpthread_mutex_lock'
mutant no-ready-chunk-none-made $rc rxvk-reuse \
	'\t\t*cur = c;\n\t\tif (!c) {' '\t\t*cur = c;\n\t\tif (0) {'

mutant poll-slack-not-put-back $rb rxvk-readback \
	'\tif (slack > 0)\n\t\tprctl(PR_SET_TIMERSLACK' '\tif (0)\n\t\tprctl(PR_SET_TIMERSLACK'
mutant poll-slack-not-shortened $rb rxvk-readback \
	'\t\t\t\tprctl(PR_SET_TIMERSLACK, MARKER_SLACK_NS, 0, 0, 0);' '\t\t\t\t(void)0;'

mutant frame-log-empty-call-delays-rows renderer/src/present.c rxvk-frame-log \
	'\tif (!l->f || !l->len || (!force && now_ns - l->written_ns < ROWLOG_FLUSH_NS))\n\t\treturn false;' \
	'\tif (!l->f || (!force && now_ns - l->written_ns < ROWLOG_FLUSH_NS))\n\t\treturn false;\n\tif (!l->len) {\n\t\tl->written_ns = now_ns;\n\t\treturn false;\n\t}'
mutant frame-log-rows-kept-past-due renderer/src/present.c rxvk-frame-log \
	'now_ns - l->written_ns < ROWLOG_FLUSH_NS))' 'now_ns - l->written_ns < 2 * ROWLOG_FLUSH_NS))'

# RX_VK_OFF_IRQ_CPUS (renderer/src/irq.c)
iq=renderer/src/irq.c
mutant irq-quarter-read-as-half $iq rxvk-irq '4 * d >= all' '2 * d >= all'
mutant irq-too-few-decide $iq rxvk-irq 'if (!all || all < min_all) {' 'if (!all) {'
mutant irq-threads-stay-where-first-put $iq rxvk-irq \
	'\tif (CPU_EQUAL(&keep, &w->keep))\n\t\treturn;' '\tif (!CPU_EQUAL(&w->keep, &w->allowed))\n\t\treturn;'
mutant irq-recording-threads-not-moved $rc rxvk-irq \
	'\t\tif (r->threads[i].started) {\n\t\t\tif ((rc = pthread_setaffinity_np' \
	'\t\tif (0) {\n\t\t\tif ((rc = pthread_setaffinity_np'
mutant irq-recycler-not-moved $rc rxvk-irq \
	'\tif (r->recycler_started) {\n\t\tif ((rc = pthread_setaffinity_np' '\tif (0) {\n\t\tif ((rc = pthread_setaffinity_np'
mutant irq-switch-on-by-default renderer/src/settings.c rxvk-irq \
	'OFF(off_irq_cpus), RXVK_SWITCH_OFF' 'OFF(off_irq_cpus), RXVK_SWITCH_ON'
mutant irq-recycler-not-woken-when-armed $rc rxvk-irq \
	'\trxvk_irq_watch_arm(rx);\n\tpthread_mutex_lock(&r->recycle_lock);\n\tpthread_cond_signal(&r->recycle_cond);' \
	'\trxvk_irq_watch_arm(rx);\n\tpthread_mutex_lock(&r->recycle_lock);'

# parts recorded and submitted on threads (RX_VK_PARALLEL >= 2)
mutant thread-part-left-for-next-handover $rc rxvk-readback \
	'\t\tjob->state = rc < 0 ? rc : JOB_RECORDED;\n\t\tsubmit_ready_locked(rx, r);\n' \
	'\t\tjob->state = rc < 0 ? rc : JOB_RECORDED;\n'
mutant thread-submits-a-failed-part $rc rxvk-rollback-threads \
	'r->to_submit->state == JOB_RECORDED) {' 'r->to_submit->state != JOB_QUEUED && r->to_submit->state != JOB_SUBMITTED) {'
mutant early-left-off-on-threads $rb rxvk-readback \
	'\tif (mode == RXVK_EARLY_PART || mode == RXVK_EARLY_MARKER) {' \
	'\tif (mode == RXVK_EARLY_MARKER || (mode == RXVK_EARLY_PART && rx->set.cfg.parallel < 2)) {'

echo "$caught caught, $missed missed, $broken did not apply or build"
[ $missed -eq 0 ] && [ $broken -eq 0 ]
