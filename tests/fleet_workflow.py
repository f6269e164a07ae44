"""fleet_workflow: plays deck/forgejo/rxdeck-night.yml without a forge.

The fleet tests (test-fleet-workflow.py, test-fleet-e2e.py) read the
workflow file itself and run what it says, the way forgejo-runner runs a
job on a host label (no container): each `run:` script with bash
(`bash --noprofile --norc -eo pipefail`, GitHub Actions' and act's default
shell), the workflow's, job's and step's `env:` (expressions evaluated),
GITHUB_* variables, step `if:` with success()/always(), continue-on-error,
and job `needs:`.  The actions are played by their documented effect:

  actions/checkout        the repository's files copied into the workspace
  actions/upload-artifact@v3    `path` (a folder's files, or a file) stored
                          under the artifact `name`
  actions/download-artifact@v3  without `name`: every artifact of the run
                          into `path`/NAME/ (upload-artifact v3 and
                          download-artifact v3's README: "If the name input
                          parameter is not provided, all artifacts will be
                          downloaded ... into their own folder")

Expressions: only the forms the workflow uses are understood (`a || 'b'`,
`x != ''`, `x == 'y'`, contexts github, inputs, matrix, secrets, env, and
always()/success()/failure()); anything else raises, so a change to the
workflow that this player does not know fails the tests instead of being
skipped.

A job's matrix legs run at once, one thread a runner, as on a fleet where
each Deck's forgejo-runner takes its own leg while the others take theirs
(a runner runs one job at a time: legs that land on one runner run one
after another on it); a job that `needs:` them starts when all have
ended."""

import os
import re
import shutil
import subprocess
import threading

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Unknown(Exception):
    pass


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    # YAML 1.1 reads the key `on` as true
    if True in doc and "on" not in doc:
        doc["on"] = doc.pop(True)
    return doc


def _value(term, ctx):
    term = term.strip()
    if term.startswith("'") and term.endswith("'"):
        return term[1:-1].replace("''", "'")
    if term in ("always()", "success()", "failure()"):
        failed = ctx.get("_failed", False)
        return {"always()": True, "success()": not failed, "failure()": failed}[term]
    m = re.fullmatch(r"(github|inputs|matrix|secrets|env|vars)\.([A-Za-z_][A-Za-z0-9_-]*)", term)
    if not m:
        raise Unknown(f"expression term '{term}' is not one this player knows")
    scope = ctx.get(m.group(1), {})
    v = scope.get(m.group(2), "")
    return "" if v is None else v


def evaluate(expr, ctx):
    """The value of one expression (without ${{ }})."""
    expr = expr.strip()
    if "||" in expr:
        for part in expr.split("||"):
            v = _value(part, ctx)
            if v not in ("", False, None, 0):
                return v
        return v
    for op in ("!=", "=="):
        if op in expr:
            a, b = expr.split(op, 1)
            same = str(_value(a, ctx)) == str(_value(b, ctx))
            return not same if op == "!=" else same
    return _value(expr, ctx)


def substitute(text, ctx):
    def one(m):
        v = evaluate(m.group(1), ctx)
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)
    return EXPR.sub(one, str(text))


def condition(expr, ctx):
    """A step's or job's if: (bare or in ${{ }}); default success()."""
    if expr is None:
        return not ctx.get("_failed", False)
    text = str(expr).strip()
    m = EXPR.fullmatch(text)
    if m:
        text = m.group(1)
    v = evaluate(text, ctx)
    return v not in ("", False, None, "false")


def matrix_legs(job):
    """The matrix's combinations of a job (one key lists only)."""
    matrix = (job.get("strategy") or {}).get("matrix")
    if not matrix:
        return [{}]
    keys = [k for k in matrix if k not in ("include", "exclude")]
    if len(keys) != 1 or matrix.get("include") or matrix.get("exclude"):
        raise Unknown("this player knows a matrix of one list only")
    return [{keys[0]: v} for v in matrix[keys[0]]]


def rxdeck_lines(script):
    """The rxdeck command lines of a run script, continuations joined."""
    out = []
    for line in script.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line.startswith("rxdeck "):
            out.append(line)
        elif re.search(r"(^|[|&;]\s*)rxdeck ", line):
            out.append(line[line.index("rxdeck "):])
    return out


class Runner:
    """One host runner: its labels and the environment its jobs start with
    (a Deck's: its own database, its system root, PATH with rxdeck)."""

    def __init__(self, name, labels, env, root):
        self.name = name
        self.labels = set(labels)
        self.env = dict(env)
        self.root = root
        os.makedirs(root, exist_ok=True)


class Play:
    """One run of the workflow: its contexts, artifacts and step log."""

    def __init__(self, workflow_path, repo_dir, artifacts_dir, github, inputs, secrets,
                 env_overrides=None, log=print):
        self.wf = load(workflow_path)
        self.repo_dir = repo_dir
        self.artifacts = artifacts_dir
        os.makedirs(artifacts_dir, exist_ok=True)
        self.github = dict(github)
        self.inputs = dict(inputs)
        self.secrets = dict(secrets)
        self.env_overrides = dict(env_overrides or {})
        self.log = log
        self.results = {}     # job id -> "success" | "failure"
        self.steps_run = []   # (job, leg, step name, outcome), in the order they ended
        self._lock = threading.Lock()
        self._workspaces = 0

    def _ctx(self, matrix, env):
        return {"github": self.github, "inputs": self.inputs, "secrets": self.secrets,
                "matrix": matrix, "env": env}

    def _env(self, layers, ctx):
        env = {}
        for layer in layers:
            for k, v in (layer or {}).items():
                ctx["env"] = env
                env[k] = substitute(v, ctx) if not isinstance(v, bool) else str(v).lower()
        return env

    def run_job(self, job_id, runner, matrix):
        job = self.wf["jobs"][job_id]
        with self._lock:
            self._workspaces += 1
            workspace = os.path.join(runner.root, "work", f"{job_id}-{self._workspaces}")
        os.makedirs(workspace)
        ctx = self._ctx(matrix, {})
        wf_env = dict(self.wf.get("env") or {})
        wf_env.update(self.env_overrides)
        base = self._env([wf_env, job.get("env")], ctx)
        failed = False
        for i, step in enumerate(job["steps"]):
            name = step.get("name") or step.get("uses") or f"step {i}"
            ctx = self._ctx(matrix, base)
            ctx["_failed"] = failed
            if not condition(step.get("if"), ctx):
                with self._lock:
                    self.steps_run.append((job_id, matrix, name, "skipped"))
                continue
            env = dict(base)
            env.update(self._env([step.get("env")], dict(ctx, env=dict(base))))
            ok = self._step(step, env, ctx, workspace, runner)
            outcome = "success" if ok else "failure"
            with self._lock:
                self.steps_run.append((job_id, matrix, name, outcome))
            if not ok and not step.get("continue-on-error"):
                failed = True
        return not failed

    def _step(self, step, env, ctx, workspace, runner):
        if "run" in step:
            script = substitute(step["run"], dict(ctx, env=env))
            full = dict(runner.env)
            full.update(env)
            full.update({"GITHUB_WORKSPACE": workspace, "CI": "true",
                         "GITHUB_SERVER_URL": self.github["server_url"],
                         "GITHUB_REPOSITORY": self.github["repository"],
                         "GITHUB_RUN_NUMBER": str(self.github["run_number"])})
            with self._lock:
                n = len(self.steps_run)
            path = os.path.join(workspace, f".step-{n}.sh")
            with open(path, "w", encoding="utf-8") as f:
                f.write(script)
            p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", path],
                               cwd=workspace, env=full, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.log(f"--- {runner.name}: {step.get('name', 'run')} (exit {p.returncode})\n"
                     f"{p.stdout}")
            return p.returncode == 0
        uses = step["uses"]
        action, _, version = uses.partition("@")
        with_ = {k: substitute(v, dict(ctx, env=env)) for k, v in (step.get("with") or {}).items()}
        if action == "actions/checkout":
            shutil.copytree(self.repo_dir, workspace, dirs_exist_ok=True)
            return True
        if action == "actions/upload-artifact" and version == "v3":
            src = os.path.join(workspace, with_["path"])
            dest = os.path.join(self.artifacts, with_["name"])
            if os.path.isdir(src):
                files = [f for f in os.listdir(src)]
                if not files and with_.get("if-no-files-found") == "error":
                    return False
                shutil.copytree(src, dest, dirs_exist_ok=True)
            elif os.path.isfile(src):
                os.makedirs(dest, exist_ok=True)
                shutil.copy(src, dest)
            elif with_.get("if-no-files-found") == "error":
                return False
            self.log(f"--- {runner.name}: uploaded artifact {with_['name']}")
            return True
        if action == "actions/download-artifact" and version == "v3":
            if "name" in with_:
                raise Unknown("download of one named artifact is not played")
            dest = os.path.join(workspace, with_.get("path", "."))
            for name in sorted(os.listdir(self.artifacts)):
                shutil.copytree(os.path.join(self.artifacts, name), os.path.join(dest, name),
                                dirs_exist_ok=True)
            return True
        raise Unknown(f"action '{uses}' is not one this player knows")

    def run(self, runners):
        """Every job in needs order, each matrix leg on the runner carrying
        its runs-on label.  Returns {job: success}."""
        done = {}
        pending = list(self.wf["jobs"])
        while pending:
            for job_id in list(pending):
                job = self.wf["jobs"][job_id]
                needs = job.get("needs") or []
                needs = [needs] if isinstance(needs, str) else needs
                if any(n not in done for n in needs):
                    continue
                pending.remove(job_id)
                failed_needs = any(not done[n] for n in needs)
                ctx = self._ctx({}, {})
                ctx["_failed"] = failed_needs
                if not condition(job.get("if"), ctx):
                    done[job_id] = False
                    continue
                done[job_id] = self._run_legs(job_id, job, runners)
        return done

    def _run_legs(self, job_id, job, runners):
        """A job's legs, each on the runner carrying its runs-on label: the
        runners at once, one thread each, a runner's own legs in turn.
        True when every leg succeeded."""
        by_runner = {}
        for leg in matrix_legs(job):
            label = substitute(job["runs-on"], self._ctx(leg, {}))
            runner = next((r for r in runners if label in r.labels), None)
            if runner is None:
                raise Unknown(f"no runner carries the label '{label}'")
            by_runner.setdefault(runner.name, (runner, []))[1].append(leg)
        results = []
        errors = []

        def one_runner(runner, legs):
            try:
                for leg in legs:
                    ok = self.run_job(job_id, runner, leg)
                    with self._lock:
                        results.append(ok)
            except BaseException as e:  # raised again on the caller's thread
                with self._lock:
                    errors.append(e)

        threads = [threading.Thread(target=one_runner, args=rl, name=f"runner-{name}")
                   for name, rl in by_runner.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return all(results)
