"""Every file, folder, script and example the docs name exists, and every MuJoCo site or camera
their code names is in a bundled model: the docs' paths are checked mechanically, so that a doc
cannot keep pointing at something that moved or never was.

Read: README.md, CHANGELOG.md, docs/*.md and the READMEs under assets/, integrations/, examples/
and benchmarks/results/ (the results files themselves record past runs: the commands and paths of
their day, so they are not checked). Checked in each:
- every Markdown link to a file of the repository ([text](path), #anchors dropped);
- every path in backticks or in a code block that starts with one of the repository's top-level
  folders (scripts/run-demo.sh, include/wr/wr.h, ...) or names a file beside the doc, resolved
  from the repository root or from the doc's folder; paths the build or a run makes (build*/,
  .venv*/, demo_out/), placeholders (<dir>, {x}, ...) and patterns (*) are left alone;
- in code blocks, site="..." and .camera("...") names: each must be a site or camera of an MJCF
  model under assets/.
Prints every broken reference as doc:line: what; exits 1 if there is one.
    usage: check_doc_paths.py REPO_ROOT
"""

import re
import sys
from pathlib import Path

GENERATED = re.compile(r"^(build[^/]*|\.venv[^/]*|demo_out|dist)(/|$)")
PLACEHOLDER = re.compile(r"[<>{}*$~]|\.\.\.")
LINK = re.compile(r"\]\(([^)\s]+)\)")
TICKED = re.compile(r"`([^`]+)`")
WORD_SEPARATORS = re.compile(r"[\s\"'()\[\]=,;|]+")
PATH = re.compile(r"^[A-Za-z0-9_.\-/]+$")
SITE = re.compile(r"""site\s*=\s*["']([^"']+)["']""")
CAMERA = re.compile(r"""\.camera\(\s*["']([^"']+)["']""")


def docs(root: Path):
    yield from (root / name for name in ("README.md", "CHANGELOG.md") if (root / name).exists())
    yield from sorted((root / "docs").glob("*.md"))
    for folder in ("assets", "integrations", "examples"):
        yield from sorted((root / folder).rglob("README.md"))
    yield root / "benchmarks" / "results" / "README.md"


def model_names(root: Path, tag: str) -> set:
    names = set()
    for xml in (root / "assets").rglob("*.xml"):
        names.update(re.findall(r"<%s\b[^>]*\bname=\"([^\"]+)\"" % tag, xml.read_text()))
    return names


def main() -> int:
    root = Path(sys.argv[1]).resolve()
    top = {p.name for p in root.iterdir() if p.is_dir() and p.name != ".git"}
    sites, cameras = model_names(root, "site"), model_names(root, "camera")
    broken = []
    checked = 0

    def exists(path: str, doc: Path) -> bool:
        return (root / path).exists() or (doc.parent / path).exists()

    def paths_in(text: str, doc: Path):
        """The words of text that name a path of the repository (relative, with a folder)."""
        for word in WORD_SEPARATORS.split(text):
            if PLACEHOLDER.search(word) or "://" in word:
                continue
            word = word.removeprefix("./").rstrip(".,:;")
            if not PATH.match(word) or "/" not in word or word.startswith("/") or GENERATED.match(word):
                continue
            first = word.split("/")[0]
            # a top-level folder of the repository, or one beside the doc (integrations/mujoco's apps/)
            if first in top or (first and (doc.parent / first).is_dir()):
                yield word

    for doc in docs(root):
        in_code = False
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            where = f"{doc.relative_to(root)}:{number}"
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            for target in LINK.findall(line):
                target = target.split("#")[0]
                if not target or "://" in target or target.startswith("mailto:"):
                    continue
                checked += 1
                if not (doc.parent / target).exists():
                    broken.append(f"{where}: the link ({target}) names no file")
            texts = [line] if in_code else TICKED.findall(line)
            for path in (p for text in texts for p in paths_in(text, doc)):
                checked += 1
                if not exists(path, doc):
                    broken.append(f"{where}: {path} does not exist")
            if in_code:
                for name in SITE.findall(line):
                    checked += 1
                    if name not in sites:
                        broken.append(f"{where}: site \"{name}\" is in no bundled model (sites: {sorted(sites)})")
                for name in CAMERA.findall(line):
                    checked += 1
                    if name not in cameras:
                        broken.append(f"{where}: camera \"{name}\" is in no bundled model (cameras: {sorted(cameras)})")
    for line in broken:
        print(line)
    print(f"{checked} references checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
