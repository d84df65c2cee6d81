"""The documentation: links that resolve, pages a reader can finish, commands that exist.

- Every relative link in README.md, docs/, Tests/README.md, bench/ and web/README.md
  reaches a file or folder, and every `#anchor` a heading of the target page, by GitHub's
  slug rules.
- README.md is at most 200 lines; no page under docs/ or bench/, nor Tests/README.md, is
  over 300.
- Every `allspark-node SUBCOMMAND ...` that README.md or a guide page shows (in a shell code
  block or an inline code span) names subcommands the built binary has, and options its
  `--help` lists. A code block whose first line says "coming", or an inline span followed by
  "(coming", is a command not in this build yet and is only listed.
- docs/reference/metrics.md names every metric MetricsExporter.swift registers.
- docs/reference/cli.md (and its cli-*.md pages) has a section for every subcommand the binary has, with its options.
- docs/guide/troubleshooting.md explains every health problem the sources report.

The binary is .build/debug/allspark-node, or the one ALLSPARK_NODE_BIN names.
"""
import os
import re
import shlex
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE_BIN = Path(os.environ.get("ALLSPARK_NODE_BIN", REPO / ".build/debug/allspark-node"))

README_MAX_LINES = 200
PAGE_MAX_LINES = 300


def pages():
    """Every page whose links are checked."""
    found = [REPO / "README.md", REPO / "Tests/README.md", REPO / "web/README.md"]
    found += sorted((REPO / "docs").rglob("*.md"))
    found += sorted((REPO / "bench").rglob("*.md"))
    return [page for page in found if page.is_file()]


def sized_pages():
    """Pages held to PAGE_MAX_LINES."""
    return [page for page in pages() if page.name != "README.md" or page.parent != REPO] 


def without_code(text):
    """The text with fenced code blocks and inline code spans blanked (links there are not links)."""
    lines = []
    fenced = False
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            lines.append("")
            continue
        lines.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(lines)


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def links(page):
    """(line number, target) of every inline link on a page, outside code."""
    found = []
    for number, line in enumerate(without_code(page.read_text(encoding="utf-8")).split("\n"), 1):
        for match in LINK.finditer(line):
            found.append((number, match.group(1)))
    return found


def heading_text(markdown):
    """What GitHub shows of a heading: code spans unwrapped, links to their text, emphasis gone."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"`([^`]*)`", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("**", "").strip()


def slug(text):
    """GitHub's anchor for a heading (github-slugger): lower case, punctuation dropped, spaces to hyphens."""
    kept = "".join(c for c in heading_text(text).lower() if c.isalnum() or c in "-_ " or _is_mark(c))
    return kept.replace(" ", "-")


def _is_mark(character):
    import unicodedata

    return unicodedata.category(character).startswith("M")


@lru_cache(maxsize=None)
def anchors(page):
    """Every anchor a page's headings make, duplicates numbered as GitHub numbers them."""
    seen = {}
    found = set()
    for line in without_code_keep_headings(Path(page).read_text(encoding="utf-8")):
        match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def without_code_keep_headings(text):
    """The lines outside fenced code blocks (a `#` comment in a shell block is no heading)."""
    fenced = False
    for line in text.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def test_every_relative_link_resolves():
    broken = []
    for page in pages():
        for number, target in links(page):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:, rtsp:
                continue
            path_part, _, anchor = target.partition("#")
            destination = (page.parent / path_part).resolve() if path_part else page
            where = f"{page.relative_to(REPO)}:{number}: {target}"
            if not destination.exists():
                broken.append(f"{where} (no such file)")
                continue
            if REPO not in destination.parents and destination != REPO:
                broken.append(f"{where} (outside the repository)")
                continue
            if anchor:
                if destination.is_dir() or destination.suffix != ".md":
                    broken.append(f"{where} (an anchor into something that is not a page)")
                elif anchor not in anchors(str(destination)):
                    broken.append(f"{where} (no heading makes #{anchor})")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_pages_checked_are_the_ones_a_reader_meets():
    names = {str(page.relative_to(REPO)) for page in pages()}
    for needed in ("README.md", "Tests/README.md", "bench/README.md", "web/README.md", "docs/reference/config.md"):
        assert needed in names


def test_slugs_follow_githubs_rules():
    assert slug("Recorder: node vs `ffmpeg -f segment` (`bench/recorder-bench.sh`)") == "recorder-node-vs-ffmpeg--f-segment-benchrecorder-benchsh"
    assert slug("The guest's clock, and 20 cuts with whole pages (2026-11-27)") == "the-guests-clock-and-20-cuts-with-whole-pages-2026-11-27"
    assert slug("`GET /api/chunks/{file}`") == "get-apichunksfile"
    assert slug("Privacy at the camera's pace: YuNet beside CenterFace (issue 30)") == "privacy-at-the-cameras-pace-yunet-beside-centerface-issue-30"


def test_readme_is_short():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; at most {README_MAX_LINES}: move detail to docs/"


def test_no_page_is_too_long():
    long = []
    for page in sized_pages():
        lines = page.read_text(encoding="utf-8").count("\n")
        if lines > PAGE_MAX_LINES:
            long.append(f"{page.relative_to(REPO)}: {lines} lines")
    assert not long, f"pages over {PAGE_MAX_LINES} lines (split them):\n" + "\n".join(long)


# Commands


def command_sources():
    return [REPO / "README.md"] + sorted((REPO / "docs/guide").glob("*.md"))


SEPARATORS = {"|", "||", "&", "&&", ";", "(", ")", "$", "$(", "`"}


def is_node_binary(word):
    """`allspark-node`, or a path to the binary (`/usr/bin/...`, `.build/release/...`), not a
    directory of that name such as `/etc/allspark-node`."""
    return word == "allspark-node" or re.search(r"(^|/)(bin|release|debug)/allspark-node$", word) is not None


def commands_in(line):
    """Each `allspark-node ...` command of one shell line, as its arguments."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
    except ValueError:
        tokens = line.split("#", 1)[0].split()
    found = []
    segment = []
    for token in tokens + [";"]:
        if token in SEPARATORS or token.startswith("$("):
            if token.startswith("$(") and len(token) > 2:
                segment_rest = [token[2:]]
            else:
                segment_rest = []
            words = list(segment)
            while words and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]) or words[0] in ("sudo", "exec", "time")):
                words.pop(0)
            if words and is_node_binary(words[0]):
                found.append(words[1:])
            segment = segment_rest
        else:
            segment.append(token)
    return found


def shown_commands():
    """(where, arguments, coming) of every allspark-node command README.md and the guide show."""
    shown = []
    for page in command_sources():
        text = page.read_text(encoding="utf-8")
        lines = text.split("\n")
        fenced = None
        block_coming = False
        pending = ""
        for number, line in enumerate(lines, 1):
            fence = re.match(r"^\s*(```|~~~)\s*([\w-]*)", line)
            if fence:
                if fenced is None:
                    fenced = fence.group(2) or "sh"
                    block_coming = False
                    first = lines[number] if number < len(lines) else ""
                    block_coming = "coming" in first.lower()
                else:
                    fenced = None
                continue
            where = f"{page.relative_to(REPO)}:{number}"
            if fenced is not None:
                if fenced not in ("sh", "bash", "shell", "console"):
                    continue
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                for arguments in commands_in(pending + line):
                    shown.append((where, arguments, block_coming))
                pending = ""
                continue
            for match in re.finditer(r"`([^`]+)`", line):
                if not re.search(r"(^|[\s/])allspark-node(\s|$)", match.group(1)):
                    continue
                coming = line[match.end():].lstrip().startswith("(coming")
                for arguments in commands_in(match.group(1)):
                    shown.append((where, arguments, coming))
    return shown


def test_the_guide_shows_commands():
    shown = shown_commands()
    assert len(shown) > 20, "the extraction found almost nothing: it is broken"
    assert any(arguments[:2] == ["fleet", "fetch"] for _, arguments, _ in shown)


@lru_cache(maxsize=None)
def help_text(path):
    result = subprocess.run(
        [str(NODE_BIN), *path, "--help"], capture_output=True, text=True, timeout=60,
        env={**os.environ, "ALLSPARK_CONFIG": "/dev/null"})
    return result.returncode, result.stdout + result.stderr


def subcommands(help_output):
    """The names under SUBCOMMANDS: in an ArgumentParser help text."""
    names = []
    section = False
    for line in help_output.split("\n"):
        if line.startswith("SUBCOMMANDS:"):
            section = True
            continue
        if section:
            if line and not line.startswith(" "):
                break
            match = re.match(r"^  ([a-z][a-z0-9-]*)", line)
            if match:
                names.append(match.group(1))
    return names


def test_every_command_shown_is_one_the_cli_parses():
    if not NODE_BIN.exists():
        pytest.skip(f"no node binary at {NODE_BIN} (swift build, or set ALLSPARK_NODE_BIN)")
    problems = []
    coming = []
    for where, arguments, is_coming in shown_commands():
        if is_coming:
            coming.append(f"{where}: allspark-node {' '.join(arguments)}")
            continue
        path = []
        code, text = help_text(tuple(path))
        assert code == 0, text
        for index, word in enumerate(arguments):
            if word.startswith("-"):
                break
            if word in subcommands(text):
                path.append(word)
                code, text = help_text(tuple(path))
                if code != 0:
                    problems.append(f"{where}: `allspark-node {' '.join(path)} --help` exits {code}")
                    break
            elif subcommands(text):
                name = " ".join(["allspark-node", *path])
                problems.append(f"{where}: {name} has no subcommand {word!r}")
                break
            else:
                break
        for word in arguments:
            if word.startswith("--") and word not in ("--help", "--version"):
                option = word.split("=", 1)[0]
                if not re.search(re.escape(option) + r"(?![\w-])", text):
                    problems.append(f"{where}: `allspark-node {' '.join(path)}` has no option {option}")
    if coming:
        print("commands shown as coming (not checked):\n" + "\n".join(coming))
    assert not problems, "commands the CLI does not parse:\n" + "\n".join(problems)


def test_the_metrics_reference_names_every_metric():
    source = (REPO / "Sources/AllSparkNode/Server/MetricsExporter.swift").read_text(encoding="utf-8")
    page = (REPO / "docs/reference/metrics.md").read_text(encoding="utf-8")
    registered = []
    for name, unit in re.findall(r'metric\(\s*"([a-z_]+)", unit: "([a-z_]*)"', source):
        registered.append("allspark_" + name + ("_" + unit if unit else ""))
    registered += re.findall(r'name: "(allspark_[a-z_]+)"', source)
    assert len(registered) > 30
    missing = [name for name in registered if f"`{name}`" not in page and f"`{name}{{" not in page]
    assert not missing, f"metrics not in docs/reference/metrics.md: {missing}"


def command_tree(path=()):
    """Every leaf subcommand of the binary, as tuples of words."""
    code, text = help_text(tuple(path))
    assert code == 0, text
    names = [name for name in subcommands(text)]
    if not names:
        return [tuple(path)]
    leaves = []
    for name in names:
        leaves += command_tree((*path, name))
    return leaves


def cli_reference_sections():
    """`## name` sections of docs/reference/cli.md that name a subcommand, with their text."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in [REPO / "docs/reference/cli.md", *sorted((REPO / "docs/reference").glob("cli-*.md"))])
    sections = {}
    current = None
    for line in text.split("\n"):
        match = re.match(r"^## (.+)$", line)
        if match:
            current = match.group(1).strip() if re.match(r"^[a-z][a-z -]*$", match.group(1).strip()) else None
            if current:
                sections[current] = ""
            continue
        if current:
            sections[current] += line + "\n"
    return text, sections


def test_the_cli_reference_has_every_subcommand_and_option():
    if not NODE_BIN.exists():
        pytest.skip(f"no node binary at {NODE_BIN} (swift build, or set ALLSPARK_NODE_BIN)")
    page, sections = cli_reference_sections()
    leaves = {" ".join(leaf) for leaf in command_tree() if leaf}
    assert leaves == set(sections), (
        f"subcommands without a section in docs/reference/cli.md: {sorted(leaves - set(sections))}; "
        f"sections for subcommands the binary does not have: {sorted(set(sections) - leaves)}")
    missing = []
    for leaf in sorted(leaves):
        _, text = help_text(tuple(leaf.split()))
        for option in re.findall(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", text, flags=re.M):
            if option in ("--help", "--version"):
                continue
            if f"`{option}" not in sections[leaf] and f"`{option}" not in page.split("\n## run")[0]:
                missing.append(f"{leaf} {option}")
    assert not missing, f"options not in docs/reference/cli.md: {missing}"


# Each health problem the node reports (a piece of its text as the Swift sources write it)
# and the words the troubleshooting page files it under. A problem whose text changes in the
# code fails here until the page follows.
HEALTH_PROBLEMS = [
    ("recording has stopped", "recording has stopped"),
    ("no frame for ", "no frame for N ms"),
    ("source failed: ", "source failed"),
    ("no frame since start", "no frame since start"),
    ("disk full: ", "disk full: N bytes free, a chunk needs about M"),
    ("store vanished: ", "store vanished"),
    (" is not writable: ", "is not writable"),
    ("cannot write to the store: ", "cannot write to the store"),
    ("has no room for a chunk's first frame", "has no room for a chunk's first frame"),
    ("privacy: detection is behind: ", "privacy: detection is behind"),
    ("privacy degraded: ", "privacy degraded"),
    (" frames fully masked after detection failures", "frames fully masked after detection failures"),
    ("clock: the kernel clock is not synchronised", "the kernel clock is not synchronised"),
    ("clock: the kernel clock's maximum error ", "the kernel clock's maximum error"),
    (" s behind the newest recording (was it set back?)", "the clock is behind the newest recording"),
    ("edge clock: offset ", "edge clock: offset"),
    ("edge clock: drift ", "edge clock: drift"),
    ("uplink not connected: ", "uplink not connected"),
    ("archive failing: ", "archive failing"),
    ("archive lag ", "archive lag"),
]


def test_troubleshooting_explains_every_health_problem():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (REPO / "Sources/AllSparkNode").rglob("*.swift"))
    page = (REPO / "docs/guide/troubleshooting.md").read_text(encoding="utf-8")
    gone = [code for code, _ in HEALTH_PROBLEMS if code not in sources]
    assert not gone, f"health problems no longer in the sources (update the list and the page): {gone}"
    missing = [words for _, words in HEALTH_PROBLEMS if words not in page]
    assert not missing, f"health problems docs/guide/troubleshooting.md does not explain: {missing}"
