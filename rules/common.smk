# Configuration checks and the input functions every stage uses.
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import NoReturn

import jsonschema
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

sys.path.insert(0, workflow.basedir)

from searchbench.configcheck import (
    reproduce_command as reproduce_command_of,
)  # noqa: E402
from searchbench.configcheck import (  # noqa: E402
    config_error_line,
    fast_safe_load,
    first_config_error,
    load_side_file,
    load_yaml_unique,
    local_path_problem,
    query_kinds_problem,
    rule_kinds,
    index_of_problem,
    tool_languages_problem,
    tool_tracks_problem,
    rules_problem,
    variants_problem,
    side_file_path,
    unknown_name_line,
    unknown_target_line,
    unknown_target_pattern,
)
from searchbench.corpora import directory_revision, is_local_git  # noqa: E402
from searchbench.preflight import (
    default_configfile,
    target_configfile_line,
)  # noqa: E402
from searchbench.codehash import script_code_hash  # noqa: E402
from searchbench.design import Design  # noqa: E402
from searchbench.errors import BenchError  # noqa: E402
from searchbench.artifacts import (
    changed_artifacts,
    changed_line,
    forced_by,
)  # noqa: E402
from searchbench.measures import TRACK_BY_NAME, TRACK_DECLARATIONS  # noqa: E402
from searchbench.measures import TRACKS as TRACK_NAMES  # noqa: E402
from searchbench.report.inputs import rule_inputs  # noqa: E402
from searchbench.headings import docs_shape, word_rule, token_rules  # noqa: E402
from searchbench.hay.signals import FALSE_FIRING_WORDS_FILE  # noqa: E402
from searchbench.build import build_name, build_pins, skipped_line  # noqa: E402
from searchbench.tools import (
    READING_ONLY,
    RESOLUTION_ENV,
    resolution_from_text,
    resolution_key,
    resolution_text,
    resolve_tools,
    specs_from_mapping,
    tool_identity,
    tool_search_path,
)  # noqa: E402
from searchbench.scheduling import drop_rate_limit_at_execution  # noqa: E402

# profiles/default's `max-jobs-per-timespan` is a limit no run reaches; Snakemake's limiter
# would still re-run its scheduler on a timer and keep the process alive up to a timespan
# after the last job (searchbench/scheduling.py). Removed, it schedules when a job ends.
drop_rate_limit_at_execution(workflow)

BASEDIR = Path(workflow.basedir)
SCHEMA = BASEDIR / "config" / "schema" / "config.schema.yaml"
TOOLS_SCHEMA = BASEDIR / "config" / "schema" / "tools.schema.yaml"
DOCS_TOKENS_SCHEMA = BASEDIR / "config" / "schema" / "docs_tokens.schema.yaml"
TRACKS = list(TRACK_NAMES)

# The paths that many rules read, written once here; their writers declare them by these
# names too (fetch_corpus, symbols, resolve_tool, search, score, calibration; queries.tsv and
# qrels.txt: each track's queries rule, under the track's name).
CHECKOUT_JSON = "resources/corpora/{corpus}/checkout.json"
CORPUS_JSON = "results/{corpus}/corpus.json"
FILES_TSV = "results/{corpus}/files.tsv"
SYMBOLS_TSV = "results/{corpus}/symbols.tsv"
TOOL_JSON = "results/tools/{tool}.json"
QUERIES_TSV = "results/{corpus}/{track}/queries.tsv"
QRELS_TXT = "results/{corpus}/{track}/qrels.txt"
RAW_JSONL = "results/{corpus}/{track}/raw/{tool}.jsonl"
RUN_FILE = "results/{corpus}/{track}/runs/{tool}.run"
REPEAT_JSON = "results/{corpus}/{track}/repeat/{tool}.json"
FAST_PATH_JSON = "results/{corpus}/{track}/fastpath/{tool}.json"
SCORES_TSV = "results/{corpus}/{track}/scores.tsv"
HEALTH_TSV = "results/{corpus}/{track}/health.tsv"
CALIBRATION_TSV = "results/{corpus}/{track}/calibration.tsv"
CALIBRATION_STATUS_TSV = "results/calibration_status.tsv"
REPORT_CHARTS = "results/report/charts"
REPORT_HTML = "results/report/index.html"
REPORT_SUMMARY_CSV = "results/report/summary.csv"
REPORT_SUMMARY_MD = "results/report/summary.md"
TOOLS_JSON = "results/tools.json"
MINED_TSV = "results/transcripts/mined.tsv"
CODE_QUERIES_TSV = "results/{corpus}/code/queries.tsv"
HEADING_WORDS_TSV = "results/{corpus}/docs/heading_words.tsv"
HEADINGS_TSV = "results/{corpus}/docs/headings.tsv"
DOCS_UNSEEN_TSV = "results/{corpus}/docs/unseen.tsv"
FALSE_FIRINGS_TSV = "results/{corpus}/false_firings.tsv"
FILESET_TXT = "results/{corpus}/filesets/{tool}.txt"
UNSEEN_TSV = "results/{corpus}/unseen.tsv"
USAGE_QUERIES_TSV = "results/{corpus}/usage/queries.tsv"
USES_TSV = "results/{corpus}/uses.tsv"
CONTAINING_TSV = "results/{corpus}/{track}/containing.tsv"


def stop(line: str) -> NoReturn:
    """End the run (before any job, or after a checkpoint) with one line (a WorkflowError here would add Snakemake's
    traceback lines to it). Printed first: in an input function evaluated after a checkpoint,
    Snakemake's scheduler catches the exit (it cancels the running jobs cleanly) and would drop
    the line."""
    print(line, file=sys.stderr, flush=True)
    sys.exit(1)


def _check_unique_keys() -> None:
    """Snakemake's YAML loading keeps the last of two equal keys (a second `seed:`); a target
    typed after --configfile that parsed as YAML is no configuration."""
    given = workflow.config_settings.configfiles
    target = target_configfile_line(given, Path.cwd())
    if target:
        stop(target)
    for path in given or [default_configfile(BASEDIR)]:
        try:
            load_yaml_unique(Path(path))
        except ValueError as err:
            stop(f"config error: {err}")


def _validate(data: dict, schema_path: Path, source: str) -> None:
    """Snakemake's validation (it also fills defaults), reduced to one line on failure; first
    the strict check (.nan is no number, 7.0 no integer), which Snakemake's lets pass.
    """
    strict = first_config_error(data, fast_safe_load(schema_path.read_text()), source)
    if strict:
        stop(strict)
    try:
        validate(data, str(schema_path), set_default=True)
    except WorkflowError:
        stop(config_error_line(data, fast_safe_load(schema_path.read_text()), source))


def _side_file(name: str) -> dict:
    try:
        return load_side_file(name, BASEDIR)
    except ValueError as err:
        stop(f"config error: {err}")


_check_unique_keys()
_validate(config, SCHEMA, "the configuration")
config.setdefault("tools", _side_file(config["tools_file"])["tools"])
_validate({"tools": config["tools"]}, TOOLS_SCHEMA, config["tools_file"])
# A tool this configuration does not run is an `unavailable` entry: listed with its reason.
for _tool, _why in sorted(config["skip_tools"].items()):
    if _tool not in config["tools"]:
        stop(unknown_name_line("tool", _tool, config["tools"], "skip_tools"))
    config["tools"][_tool] = {
        **config["tools"][_tool],
        "unavailable": f"not run in this configuration: {_why}",
    }
LANGUAGES = _side_file(config["languages_file"])
# The jobs read the file the checks above read (with --directory, the workflow's own copy).
LANGUAGES_FILE = str(side_file_path(config["languages_file"], BASEDIR))
DOCS_TOKENS_FILE = side_file_path(config["docs"]["tokens_file"], BASEDIR)
_DOCS_TOKENS_DATA = _side_file(config["docs"]["tokens_file"])
_validate(_DOCS_TOKENS_DATA, DOCS_TOKENS_SCHEMA, config["docs"]["tokens_file"])
DOCS_TOKENS = _DOCS_TOKENS_DATA["tokens"]
# The heading-word class (track `words`): its regex, minimum length and stop words.
DOCS_WORDS = _DOCS_TOKENS_DATA["words"]
try:
    DOCS_SHAPE = docs_shape(token_rules(DOCS_TOKENS))
    word_rule(DOCS_WORDS)
except BenchError as err:
    stop(f"config error: {err}")
ASTGREP_RULES = Path(config["astgrep_rules_dir"])
if not ASTGREP_RULES.is_absolute() and not ASTGREP_RULES.exists():
    ASTGREP_RULES = BASEDIR / ASTGREP_RULES
USES_RULES = side_file_path(config["usage"]["rules_dir"], BASEDIR)
# A missing rules folder or an unknown query kind would fail only inside a job.
_problem = (
    rules_problem(ASTGREP_RULES, LANGUAGES)
    or query_kinds_problem(config["query_kinds"], rule_kinds(ASTGREP_RULES, LANGUAGES))
    or tool_languages_problem(config["tools"], LANGUAGES)
    or tool_tracks_problem(config["tools"], TRACKS, config["baseline"])
    or index_of_problem(config["tools"])
    or variants_problem(config["variants"], config["tools"], config["corpora"])
)
if _problem:
    stop(_problem)
if not sorted(USES_RULES.glob("*.yml")):
    stop(
        f"usage.rules_dir: {config['usage']['rules_dir']} holds no ast-grep rule file (*.yml); "
        "point it at config/astgrep_uses or a copy"
    )
if config["baseline"] not in config["tools"]:
    stop(unknown_name_line("tool", config["baseline"], config["tools"], "baseline"))
for _tool in config["primary"]:
    if _tool not in config["tools"]:
        stop(unknown_name_line("tool", _tool, config["tools"], "primary"))
if config["baseline"] in config["primary"]:
    stop(
        f"config error: primary names the baseline {config['baseline']!r}, which is not "
        "compared with itself; remove it from primary"
    )
for _tool, _entry in sorted(config["tools"].items()):
    _full = _entry.get("ablation_of")
    if _full is not None and (_full not in config["tools"] or _full == _tool):
        stop(
            f"{config['tools_file']}: tool {_tool!r} has ablation_of {_full!r}, which is "
            "not another tool in that file; name the full tool it varies"
        )
# A local corpus that cannot be read fails now, not halfway through a run.
for _name, _entry in sorted(config["corpora"].items()):
    if _entry["source"]["kind"] == "local":
        _problem = local_path_problem(_name, Path(_entry["source"]["path"]).resolve())
        if _problem:
            stop(_problem)


def _check_written() -> None:
    """An artifact changed since its rule wrote it stops every run before any job, in one
    line naming it and the command that regenerates it; Snakemake alone would feed the edit
    to the rules after it, or say nothing is to be done (docs/artifacts.md, "Checked
    intermediates"). A job's own Snakemake (Slurm) skips it: its run was checked."""
    if workflow.remote_exec or workflow.subprocess_exec:
        return
    changes = changed_artifacts(forced_by(sys.argv[1:]))
    if changes:
        configfiles = [str(f) for f in workflow.config_settings.configfiles]
        stop(changed_line(changes, configfiles))


_check_written()


def tool_pattern(tools) -> str:
    """A wildcard constraint matching exactly these tools (none: a name no tool has)."""
    return "|".join(map(re.escape, sorted(tools))) or "NONE"


wildcard_constraints:
    corpus="|".join(map(re.escape, sorted(config["corpora"]))) or "NONE",
    tool=tool_pattern(config["tools"]),
    track="|".join(TRACKS),


def code_hash(script: str) -> str:
    """Hash of the library code a rule's script imports (transitively): Snakemake reruns a
    rule when its script changes, but not when a module that script imports does."""
    return script_code_hash(
        BASEDIR / "searchbench", BASEDIR / "scripts" / f"{script}.py"
    )


def run_spec(tool: str) -> dict:
    """A tool's entry as the jobs that run it see it: without the fields that only say how
    results are read (tools.READING_ONLY), so that editing one reruns no search."""
    return {k: v for k, v in config["tools"][tool].items() if k not in READING_ONLY}


def corpus_spec(corpus: str) -> dict:
    return config["corpora"][corpus]


@functools.cache
def local_revision(corpus: str) -> str:
    """What a local corpus is now, so that a change refetches it and nothing else: a git
    repository's HEAD, or a directory's content manifest hash (any edited file)."""
    source = corpus_spec(corpus)["source"]
    if source["kind"] != "local":
        return ""
    path = Path(source["path"]).resolve()
    try:
        if not is_local_git(path):
            return directory_revision(path)
    except OSError as err:
        raise WorkflowError(
            f"corpus {corpus}: cannot read {err.filename or path} ({err.strerror}); "
            "fix its permissions or `source.path`"
        ) from None
    result = subprocess.run(
        ["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return result.stdout.strip() if result.returncode == 0 else ""


# The repository's bin/ (hay's fast launcher) comes before PATH.
TOOL_PATH = tool_search_path(BASEDIR / "bin")


def _resolve_tools() -> dict:
    """Resolve each tool's binary once, at parse time (docs/method.md §8: grep may not be grep).
    A job's own Snakemake (Slurm) takes the resolution its run planned with, left in the
    environment (searchbench/tools.py RESOLUTION_ENV), when made for the same tools and path.
    """
    specs = specs_from_mapping(config["tools"])
    key = resolution_key(config["tools"], TOOL_PATH, config["build_peers"])
    if not workflow.is_main_process:
        inherited = resolution_from_text(os.environ.get(RESOLUTION_ENV, ""), specs, key)
        if inherited is not None:
            return inherited
    try:
        resolved = resolve_tools(
            specs, path_env=TOOL_PATH, build_peers=config["build_peers"]
        )
    except BenchError as err:
        stop(str(err))
    os.environ[RESOLUTION_ENV] = resolution_text(resolved, key)
    return resolved


RESOLVED_TOOLS = _resolve_tools()
TOOLS = [name for name, tool in RESOLVED_TOOLS.items() if tool.available]
SKIPPED_TOOLS = [name for name, tool in RESOLVED_TOOLS.items() if not tool.available]
# Peers built from a pin (rules/build.smk): {build directory: pin}; one line names those a
# missing toolchain leaves out, and how to get it.
try:
    BUILD_PINS = build_pins(config["tools"])
except BenchError as err:
    stop(str(err))
_BUILD_SKIPPED = skipped_line(
    {
        name: tool.skipped_reason
        for name, tool in RESOLVED_TOOLS.items()
        if tool.spec.build and not tool.available
    }
)
if _BUILD_SKIPPED:
    print(_BUILD_SKIPPED, file=sys.stderr)


def tool_build(wildcards) -> list[str]:
    """A built tool's record waits for its build (and reruns when it is rebuilt)."""
    tool = RESOLVED_TOOLS[wildcards.tool]
    if tool.spec.build is None or not tool.available:
        return []
    return [f"resources/tools/{build_name(tool.spec.build)}/manifest.json"]


# A tool with no `{word}` element cannot search whole words: say so rather than mix forms.
_NO_WORD_FORM = [t for t in TOOLS if "{word}" not in config["tools"][t]["argv"]]
if config["word_match"] and _NO_WORD_FORM:
    print(
        f"note: word_match is on, but {', '.join(_NO_WORD_FORM)} "
        "have no {word} element and search as configured",
        file=sys.stderr,
    )
# A changed tool (binary content, real path, version, spec) re-resolves its own record
# (results/tools/{tool}.json) and reruns only the jobs of that tool.
TOOL_IDENTITY = {
    name: tool_identity(tool, config["build_peers"])
    for name, tool in RESOLVED_TOOLS.items()
}
if config["baseline"] not in TOOLS:
    stop(f"baseline tool {config['baseline']!r} is not available; install it")
# The declared comparison families among the tools available here (searchbench/inference.py).
PRIMARY_TOOLS = [t for t in config["primary"] if t in TOOLS]
ABLATIONS = {
    t: config["tools"][t]["ablation_of"]
    for t in TOOLS
    if config["tools"][t].get("ablation_of") in TOOLS
}


def tool_tracks(tool: str) -> list[str]:
    """The tracks a tool runs on (tools.yaml `tracks`; default every track)."""
    return config["tools"][tool].get("tracks") or TRACKS


def track_tools(track: str) -> list[str]:
    """The available tools that run on a track: its searches, scores and per-tool artifacts."""
    return [t for t in TOOLS if track in tool_tracks(t)]


def index_owner(tool: str) -> str:
    """The tool whose index a tool searches: the one its `index_of` names when that one runs
    here (the index is then built once), else its own."""
    owner = config["tools"][tool].get("index_of")
    return owner if owner in TOOLS else tool


# The tools that build an index (a tool searching another's index builds none).
INDEXED_TOOLS = [
    t for t in TOOLS if config["tools"][t].get("index_argv") and index_owner(t) == t
]
LISTING_TOOLS = [t for t in TOOLS if config["tools"][t].get("list_files_argv")]
CORPORA = sorted(config["corpora"])
# Timing runs the code track's queries: the tools on that track.
TIMED_TOOLS = track_tools("code")


def tool_index(wildcards) -> list[str]:
    if config["tools"][wildcards.tool].get("index_argv"):
        return [f"resources/index/{wildcards.corpus}/{index_owner(wildcards.tool)}.idx"]
    return []


def on_tool_track(wildcards) -> list[str]:
    """Input function of a track's per-tool jobs: a tool not on the track stops the run in one
    line (its run would be an artifact no score, report or target reads)."""
    if wildcards.track not in tool_tracks(wildcards.tool):
        stop(
            f"tool {wildcards.tool} does not run on the {wildcards.track} track (tools.yaml "
            f"tracks: {', '.join(tool_tracks(wildcards.tool))})"
        )
    return []


def track_paths(pattern: str):
    """Input function: pattern for each tool of the job's track ({corpus} and {track} from
    the job's wildcards)."""

    def paths(wildcards) -> list[str]:
        return [
            pattern.format(corpus=wildcards.corpus, track=wildcards.track, tool=t)
            for t in track_tools(wildcards.track)
        ]

    return paths


def track_params(wildcards) -> dict:
    """The tool lists of a job's track: its tools, listing tools, and the declared primary and
    ablation families among them."""
    on = track_tools(wildcards.track)
    return {
        "tools": on,
        "listing_tools": [t for t in LISTING_TOOLS if t in on],
        "primary": [t for t in PRIMARY_TOOLS if t in on],
        "ablations": {t: f for t, f in ABLATIONS.items() if t in on and f in on},
    }


def track_design(track: str) -> dict:
    """The statistical design of a track (searchbench/design.py), read from the validated
    configuration with the track's own declared families; as params, so that a change of
    any of its values reruns the job."""
    params = track_params(types.SimpleNamespace(track=track))
    return Design.from_config(
        config, track, params["primary"], params["ablations"]
    ).as_params()


def design(wildcards) -> dict:
    """Params function: the design of the job's track."""
    return track_design(wildcards.track)


FAST_PATH_TOOLS = [t for t in LISTING_TOOLS if config["tools"][t].get("fast_path")]


def fast_path_inputs(wildcards) -> dict[str, str]:
    """A fast-path tool's search job checks its fast path and takes it: its walk order and
    the files holding each query's literal."""
    if wildcards.tool not in FAST_PATH_TOOLS:
        return {}
    return {
        "walk": f"results/{wildcards.corpus}/filesets/{wildcards.tool}.txt",
        "containing": f"results/{wildcards.corpus}/{wildcards.track}/containing.tsv",
    }


DRAW_THREADS_ENV = "SEARCHBENCH_DRAW_THREADS"


def _draw_threads() -> int:
    """The threads of the query-drawing rules (the symbol pass, the samplers, the uses pass):
    two processes each, but half the run's cores at most. A job asking for both cores of a
    2-core run waits until both are free at one scheduling point, which a stream of 1-core
    jobs (index builds, searches) rarely leaves: on the kernel (2 cores, December 2026) the
    symbol pass started 48 min after its corpus was fetched, and the code track's sampler had
    waited 30 min behind the usage track's searches when the run was stopped."""
    if not workflow.is_main_process:
        # a Slurm job's own Snakemake asks srun for what its run asked sbatch for
        return int(os.environ.get(DRAW_THREADS_ENV, "2"))
    try:
        cores = workflow.cores
    except WorkflowError:  # planned without --cores (a lint): the two the rules use
        cores = 4
    threads = max(1, min(2, cores // 2))
    os.environ[DRAW_THREADS_ENV] = str(threads)
    return threads


DRAW_THREADS = _draw_threads()

# timing.enabled: false (quality runs only) leaves the timing stage out of the DAG.
TIMING_ENABLED = config["timing"]["enabled"]


def timing_tables(corpus: str) -> list[str]:
    """A corpus's timing tables, one per tool; none when timing is off."""
    if not TIMING_ENABLED:
        return []
    return [f"results/{corpus}/timing/{tool}.tsv" for tool in TIMED_TOOLS]


def behaviour_spec(corpus: str) -> dict:
    return corpus_spec(corpus).get("behaviour") or {}


# The behavioural track needs a logs folder and, per corpus, which repository it is.
BEHAVIOUR_LOGS = config["behaviour"]["logs"]
BEHAVIOUR_CORPORA = [c for c in CORPORA if BEHAVIOUR_LOGS and behaviour_spec(c)]
if BEHAVIOUR_LOGS and not Path(BEHAVIOUR_LOGS).is_dir():
    stop(
        f"behaviour.logs: {BEHAVIOUR_LOGS} is not a folder; point it at your agent "
        "transcripts (docs/behaviour.md) or set it to null"
    )


@functools.cache
def logs_revision() -> str:
    """What the transcripts folder holds now (a content hash), so new logs remine."""
    return directory_revision(Path(BEHAVIOUR_LOGS)) if BEHAVIOUR_LOGS else ""


def track_checkpoint(track: str):
    """The checkpoint that draws an optional track's queries (its declaration's queries_rule,
    searchbench/measures.py TRACK_DECLARATIONS)."""
    return getattr(checkpoints, TRACK_BY_NAME[track].queries_rule)


def check_track_checkpoints() -> None:
    """Every optional track's queries_rule names a checkpoint of the workflow; a track declared
    without one stops the run before any job, with one line (called once every rule file is
    included: Snakefile)."""
    for track in TRACK_DECLARATIONS:
        if track.optional and not hasattr(checkpoints, track.queries_rule):
            stop(
                f"track {track.name}: its queries_rule {track.queries_rule} is no checkpoint "
                "of the workflow; declare `checkpoint "
                f"{track.queries_rule}:` writing results/{{corpus}}/{track.name}/queries.tsv, "
                "qrels.txt and funnel.tsv (rules/queries.smk, docs/extending.md)"
            )


def offered_tracks(corpus: str) -> list[str]:
    """The tracks whose queries are drawn for a corpus (measured or not): every declared track,
    those that need agent transcripts only on a corpus with them."""
    return [
        t.name
        for t in TRACK_DECLARATIONS
        if not t.needs_transcripts or corpus in BEHAVIOUR_CORPORA
    ]


def is_measured(corpus: str, track: str) -> bool:
    """The code track always; another once its queries are drawn (its checkpoint) and only
    with at least {track}.min_queries of them: fewer can carry no verdict, so nothing is run
    for them and the report says so from the track's funnel. Only that track's checkpoint is
    waited on."""
    if track == "code":
        return True
    if track not in offered_tracks(corpus):
        return False
    return drawn_queries(corpus, track) >= min_queries_of(track)


def min_queries_of(track: str) -> int:
    """An optional track's minimum, {track}.min_queries or its declaration's min_queries_from
    (the heading words are the docs track's second token class and share docs.min_queries).
    """
    return config[TRACK_BY_NAME[track].min_queries_key]["min_queries"]


def drawn_queries(corpus: str, track: str) -> int:
    """How many queries an optional track's checkpoint drew for a corpus (it waits on it)."""
    queries = track_checkpoint(track).get(corpus=corpus).output.queries
    with open(queries, encoding="utf-8") as handle:
        return sum(1 for _ in handle) - 1


def unmeasured_line(corpus: str, track: str) -> str | None:
    """Why a track is not measured on a corpus, as one line; None when it is (only a drawn
    track's checkpoint is waited on, as in is_measured)."""
    if track not in offered_tracks(corpus):
        why = (
            "behaviour.logs is not set"
            if not BEHAVIOUR_LOGS
            else f"corpus {corpus} has no `behaviour:` entry"
        )
        return (
            f"the behaviour track is not measured on corpus {corpus}: {why} (docs/behaviour.md); "
            f"its tracks: {', '.join(offered_tracks(corpus))}"
        )
    if is_measured(corpus, track):
        return None
    drawn = drawn_queries(corpus, track)
    return (
        f"the {track} track is not measured on corpus {corpus}: {drawn} {track} queries drawn, "
        f"fewer than {TRACK_BY_NAME[track].min_queries_key}.min_queries "
        f"({min_queries_of(track)}), so no tool runs on "
        f"it (results/{corpus}/{track}/funnel.tsv says where candidates were lost)"
    )


def on_measured_track(wildcards) -> list[str]:
    """Input function of a track's searches: asking for a result of a track that is not
    measured on the corpus (through any target downstream) stops with one line, instead of
    scoring no queries and failing later with a misleading error."""
    line = unmeasured_line(wildcards.corpus, wildcards.track)
    if line:
        stop(line)
    return []


def behaviour_offered(wildcards) -> list[str]:
    """Input function of the behavioural queries: only a corpus with transcripts has them."""
    if wildcards.corpus not in BEHAVIOUR_CORPORA:
        stop(unmeasured_line(wildcards.corpus, "behaviour"))
    return []


def measured_tracks(corpus: str) -> list[str]:
    return [t for t in offered_tracks(corpus) if is_measured(corpus, t)]


def on_track(track: str, pattern: str, **wildcards) -> list[str]:
    """pattern for one track, over every corpus (or the one given) that measures it. Only an
    optional track waits on its checkpoint: an input function asking for the code track alone
    never does, so a dry run still plans the code track's jobs."""
    corpora = [wildcards.pop("corpus")] if "corpus" in wildcards else CORPORA
    return [
        pattern.format(corpus=corpus, track=track, **wildcards)
        for corpus in corpora
        if is_measured(corpus, track)
    ]


def ablation_documents() -> list[tuple[str, str, str]]:
    """(track, corpus, path) of every document with ablation comparisons: each measured
    corpus's inference.json and by_language.json, then the pooled by_language.json."""
    out = []
    for track in TRACKS:
        corpora = on_track(track, "{corpus}")
        for corpus in corpora:
            for name in ("inference.json", "by_language.json"):
                out.append((track, corpus, f"results/{corpus}/{track}/{name}"))
        if corpora:
            out.append((track, "pooled", f"results/pooled/{track}/by_language.json"))
    return out


def report_keys(keyed_by: str, track: str) -> list[dict[str, str]]:
    """The wildcard values of one kind of report input (searchbench/report/inputs.py)."""
    corpora = [{"corpus": c} for c in CORPORA]
    if keyed_by == "run":
        return [{}]
    if keyed_by == "corpus":
        return corpora
    if keyed_by == "behaviour corpus":
        return [{"corpus": c} for c in BEHAVIOUR_CORPORA]
    if keyed_by == "behaviour run":
        return [{}] if BEHAVIOUR_CORPORA else []
    if keyed_by == "timed tool":
        return (
            [{"corpus": c, "tool": t} for c in CORPORA for t in TIMED_TOOLS]
            if TIMING_ENABLED
            else []
        )
    if keyed_by == "indexed tool":
        return [{"corpus": c, "tool": t} for c in CORPORA for t in INDEXED_TOOLS]
    sections = [{"corpus": c, "track": track} for c in CORPORA if is_measured(c, track)]
    if keyed_by == "track":
        return sections
    if keyed_by == "pooled track":
        return [{"track": track}] if sections else []
    if keyed_by == "docs class track":
        return sections if track in DOCS_CLASSES else []
    if keyed_by == "pooled docs class":
        return [{"track": track}] if sections and track in DOCS_CLASSES else []
    on = track_tools(track)
    return [{**s, "tool": t} for s in sections for t in FAST_PATH_TOOLS if t in on]


def report_input_paths(track: str) -> dict[str, list[str]]:
    return {name: i["paths"] for name, i in rule_inputs(track, report_keys).items()}


def raw_runs(track: str) -> list[str]:
    """Every raw search record of a track: each of its tools on each corpus measuring it."""
    return [
        path
        for tool in track_tools(track)
        for path in on_track(track, RAW_JSONL, tool=tool)
    ]


def report_input_keys() -> dict[str, list[list[str]]]:
    return {
        name: i["keys"]
        for track in TRACKS
        for name, i in rule_inputs(track, report_keys).items()
    }


def corpus_targets(corpus: str) -> list[str]:
    """A corpus's targets known before any job: the code track's, the audits, the timing and
    the optional tracks' queries (whether each is measured: track_targets)."""
    return [
        *track_files(corpus, "code"),
        f"results/{corpus}/false_firings.tsv",
        f"results/{corpus}/code/gt_audit_summary.tsv",
        *drawn_targets(corpus),
        f"results/{corpus}/fileset_audit.tsv",
        *timing_tables(corpus),
    ]


def drawn_targets(corpus: str) -> list[str]:
    """Each optional track's file saying its queries are drawn (its declaration's `drawn`),
    measured or not: known before any job."""
    offered = offered_tracks(corpus)
    return [
        f"results/{corpus}/{t.name}/{t.drawn}"
        for t in TRACK_DECLARATIONS
        if t.optional and t.name in offered
    ]


def track_targets(corpus: str, only: str = "") -> list[str]:
    """The optional tracks' scores and inference, where measured (a separate input function:
    only it waits on the checkpoints, so a dry run still plans everything else)."""
    tracks = [t for t in measured_tracks(corpus) if t != "code" and only in ("", t)]
    return [path for t in tracks for path in track_files(corpus, t)]


# The analyses every measured track has per corpus (docs/extending.md "Adding an analysis"):
# each a file results/{corpus}/{track}/NAME, asked for by corpus_done and `all`.
TRACK_ANALYSES = (
    "inference.json",
    "by_language.json",
    "filter_rank.tsv",
    "ties.tsv",
    "calibration.tsv",
    "agent_cost.tsv",
    "scores.tsv",
)


def track_files(corpus: str, track: str) -> list[str]:
    """A measured track's targets on a corpus: its analyses, each tool's run record, and
    the docs classes' strata."""
    return [
        f"results/{corpus}/{track}/{name}"
        for name in (
            *TRACK_ANALYSES,
            *[f"runs/{tool}.run.yaml" for tool in track_tools(track)],
            *(["strata.json"] if track in DOCS_CLASSES else []),
        )
    ]


# The docs track's token classes, each a track: identifier tokens (docs), heading words (words).
DOCS_CLASSES = ["docs", "words"]


def strata_corpora(wildcards) -> list[str]:
    """The corpora of a docs_strata job: its corpus, or every corpus measuring its class."""
    return (
        on_track(wildcards.track, "{corpus}")
        if wildcards.corpus == "pooled"
        else [wildcards.corpus]
    )


def strata_inputs(wildcards, name: str) -> list[str]:
    return [f"results/{c}/{wildcards.track}/{name}" for c in strata_corpora(wildcards)]


def measuring_corpora(track: str) -> list[str]:
    """The corpora that measure a track; a pooled target of a track measured nowhere stops
    with one line (an optional track's checkpoints are waited on)."""
    corpora = on_track(track, "{corpus}")
    if not corpora:
        stop(
            f"results/pooled/{track}.json: the {track} track is measured on no corpus of this "
            "configuration, so there is nothing to pool (results/CORPUS/"
            f"{track}/funnel.tsv says why, where its queries were drawn)"
        )
    return corpora


def pooled_timing_keys(track: str) -> list[list[str]]:
    """(corpus, tool) of each timing table the pooled file reads: every timed tool of the
    track on every corpus measuring it (timing runs the code track's queries)."""
    if not TIMING_ENABLED:
        return []
    on = track_tools(track)
    return [[c, t] for c in measuring_corpora(track) for t in TIMED_TOOLS if t in on]


def pooled_index_owners(track: str) -> dict[str, str]:
    """tool of the track with an index -> the tool whose index it searches."""
    return {
        t: index_owner(t)
        for t in track_tools(track)
        if config["tools"][t].get("index_argv")
    }


def pooled_index_keys(track: str) -> list[list[str]]:
    owners = sorted(set(pooled_index_owners(track).values()))
    return [[c, o] for c in measuring_corpora(track) for o in owners]


def pooled_session_keys(track: str) -> list[list[str]]:
    """(corpus, tool) of each session tool's raw records: its session's ready time is the index
    time the leaderboard shows (a language server or semble indexes when it starts)."""
    return [
        [c, t]
        for c in measuring_corpora(track)
        for t in track_tools(track)
        if config["tools"][t].get("session_argv")
    ]


def pooled_repeat_keys(track: str) -> list[list[str]]:
    """(corpus, tool) of each repeatability audit the pooled file reads: every search job."""
    return [[c, t] for c in measuring_corpora(track) for t in track_tools(track)]


def pooled_inputs(wildcards) -> dict[str, list[str]]:
    """The per-corpus artifacts of results/pooled/{track}.json."""
    track = wildcards.track
    corpora = measuring_corpora(track)
    per_corpus = {
        "scores": "scores.tsv",
        "health": "health.tsv",
        "inference": "inference.json",
        "agent_cost": "agent_cost.tsv",
    }
    return {
        **{
            name: [f"results/{c}/{track}/{file}" for c in corpora]
            for name, file in per_corpus.items()
        },
        "timing": [f"results/{c}/timing/{t}.tsv" for c, t in pooled_timing_keys(track)],
        "index": [f"results/{c}/index/{t}.json" for c, t in pooled_index_keys(track)],
        "repeat": [
            f"results/{c}/{track}/repeat/{t}.json" for c, t in pooled_repeat_keys(track)
        ],
        "session": [
            f"results/{c}/{track}/raw/{t}.jsonl" for c, t in pooled_session_keys(track)
        ],
    }


def pooled_targets() -> list[str]:
    """results/pooled/{track}.json of every optional track measured on some corpus (the code
    track's is in all_targets: it is always measured)."""
    measured = [t for t in TRACKS if t != "code" and on_track(t, "{corpus}")]
    strata = [f"results/pooled/{t}/strata.json" for t in DOCS_CLASSES if t in measured]
    return [*(f"results/pooled/{track}.json" for track in measured), *strata]


def all_targets() -> list[str]:
    return [
        TOOLS_JSON,
        *(t for corpus in CORPORA for t in corpus_targets(corpus)),
        CALIBRATION_STATUS_TSV,
        "results/pooled/code.json",
        REPORT_HTML,
    ]


def config_hash() -> str:
    """sha256 of the effective configuration, as the report's provenance shows it."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


@functools.cache
def workflow_commit() -> str:
    """The workflow's own git commit, '-dirty' when tracked files differ from it; 'unknown'
    outside a git checkout (a release archive)."""
    git = ["git", "-C", str(BASEDIR)]
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "unknown"
    status = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    )
    return head.stdout.strip() + ("-dirty" if status.stdout.strip() else "")


def reproduce_command() -> str:
    return reproduce_command_of(workflow.config_settings.configfiles, BASEDIR)


def unknown_target(wildcards) -> list[str]:
    """Input function of the catch-all rule: stop with one line naming what exists."""
    # A track needing transcripts (behaviour) is named only where this configuration has them.
    offered = [
        t.name
        for t in TRACK_DECLARATIONS
        if not t.needs_transcripts or BEHAVIOUR_CORPORA
    ]
    stop(unknown_target_line(f"results/{wildcards.unknown}", CORPORA, offered))
