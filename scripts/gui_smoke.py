#!/usr/bin/python3
"""Drives the real gpurec-workbench with real X input events (xdotool) and finds its widgets through
the accessibility tree (AT-SPI, python3-pyatspi). Started by scripts/gui-smoke.sh inside Xvfb and a
D-Bus session. Checks what the application wrote: the session file, the exports and its log."""
import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time

import pyatspi

TIMEOUT = 30.0  # seconds to wait for one thing to happen
WHOLE_RUN = 300  # seconds for everything (an alarm ends a hung run)


class SmokeFailure(Exception):
    pass


def step(text):
    print(f"gui-smoke: {text}", flush=True)


def wait_for(what, probe, timeout=TIMEOUT, interval=0.25, describe=None):
    """Calls probe() until it returns something truthy (errors from a changing tree are retried)."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = probe()
            if value:
                return value
        except Exception as e:  # the tree changes under us while windows open and close
            last_error = e
        time.sleep(interval)
    raise SmokeFailure(f"timed out after {timeout:.0f} s waiting for {what}" +
                       (f" (last error: {last_error})" if last_error else "") +
                       (f"; {describe()}" if describe else ""))


def xdotool(*args):
    subprocess.run(["xdotool", *map(str, args)], check=True)


class Workbench:
    def __init__(self, exe, log_path):
        # xvfb-run may return before the server takes connections on a loaded machine.
        wait_for("the X server", lambda: subprocess.run(["xdotool", "getdisplaygeometry"],
                                                         capture_output=True).returncode == 0)
        self.labels = {}
        self.log = open(log_path, "w")
        self.process = subprocess.Popen([exe], stdout=self.log, stderr=subprocess.STDOUT)
        self.app = wait_for("the workbench on the accessibility bus", self._find_app)

    def _find_app(self):
        if self.process.poll() is not None:
            raise SmokeFailure(f"the workbench exited early with status {self.process.returncode}")
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            if app is not None and app.name == "gpurec-workbench":
                return app
        return None

    def find_all(self, role, name=None, description=None, root=None, showing=True):
        def matches(acc):
            if acc.getRole() != role:
                return False
            if name is not None and not (name.match(acc.name) if hasattr(name, "match") else acc.name == name):
                return False
            if description is not None and acc.description != description:
                return False
            return not showing or acc.getState().contains(pyatspi.STATE_SHOWING)
        found = []

        def walk(acc):  # not into tables and lists: 500 families make thousands of cells
            for i in range(acc.childCount):
                child = acc.getChildAtIndex(i)
                if child is None:
                    continue
                if matches(child):
                    found.append(child)
                if child.getRole() not in (pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_LIST):
                    walk(child)
        walk(root or self.app)
        return found

    def find_any(self, name):
        """The showing widget with this accessible name, whatever its role."""
        def walk(acc):
            for i in range(acc.childCount):
                child = acc.getChildAtIndex(i)
                if child is None:
                    continue
                if child.name == name and child.getState().contains(pyatspi.STATE_SHOWING):
                    return child
                if child.getRole() not in (pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_LIST):
                    found = walk(child)
                    if found is not None:
                        return found
            return None
        return wait_for(f"the widget '{name}'", lambda: walk(self.app))

    def find(self, role, name=None, description=None, root=None):
        label = f"{pyatspi.Registry and role} '{getattr(name, 'pattern', name) or description}'"
        return wait_for(label, lambda: next(iter(self.find_all(role, name, description, root)), None))

    def click(self, acc):
        """A real click at the middle of the widget, once it is enabled."""
        wait_for(f"'{acc.name}' to be enabled", lambda: acc.getState().contains(pyatspi.STATE_ENABLED))
        box = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        if box.width <= 0 or box.height <= 0:
            raise SmokeFailure(f"'{acc.name}' has no area on screen")
        xdotool("mousemove", "--sync", box.x + box.width // 2, box.y + box.height // 2)
        xdotool("click", "1")

    def click_tab(self, name):
        """Clicks a page tab as a user does: first the tab bar's right arrow while an arrow covers it."""
        tab = self.find(pyatspi.ROLE_PAGE_TAB, name=name)

        def covered():
            t = tab.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            for arrow in self.find_all(pyatspi.ROLE_PUSH_BUTTON, name=re.compile("Scroll (Left|Right)")):
                a = arrow.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                if a.y < t.y + t.height and t.y < a.y + a.height and a.x < t.x + t.width and t.x < a.x + a.width:
                    return True
            return False
        for _ in range(20):
            if not covered():
                break
            right = min(self.find_all(pyatspi.ROLE_PUSH_BUTTON, name="Scroll Right"),
                        key=lambda a: abs(a.queryComponent().getExtents(pyatspi.DESKTOP_COORDS).y -
                                          tab.queryComponent().getExtents(pyatspi.DESKTOP_COORDS).y))
            self.click(right)
            time.sleep(0.2)
        else:
            raise SmokeFailure(f"the tab '{name}' stays under the tab bar's arrows")
        self.click(tab)

    def type_into(self, acc, text):
        self.click(acc)
        xdotool("key", "ctrl+a")
        xdotool("type", "--delay", "4", text)

    def text_of(self, acc):
        try:
            t = acc.queryText()
            return t.getText(0, t.characterCount)
        except NotImplementedError:
            return acc.name

    def label(self, description):
        """The text of the label with this description (a status field's tooltip; found once, then read)."""
        cached = self.labels.get(description)
        if cached is not None:
            return cached.name
        found = self.find_all(pyatspi.ROLE_LABEL, description=description)
        if not found:
            raise SmokeFailure(f"no label with the tooltip '{description}'; labels: " +
                               ", ".join(f"{a.name!r}/{a.description!r}" for a in self.find_all(pyatspi.ROLE_LABEL)))
        self.labels[description] = found[0]
        return found[0].name

    def log_text(self):
        return self.text_of(self.find(pyatspi.ROLE_TEXT, name="Log"))

    def save_with_dialog(self, path):
        """Answers the file dialog that just opened: its file-name field, then Return."""
        dialog = wait_for("a file dialog", lambda: next(iter(
            [d for d in self.find_all(pyatspi.ROLE_DIALOG) if d.getState().contains(pyatspi.STATE_ACTIVE)]),
            None))
        field = self.find(pyatspi.ROLE_TEXT, name=re.compile("File name|fileNameEdit|"), root=dialog)
        self.type_into(field, path)
        xdotool("key", "Return")
        wait_for(f"{path} to be written", lambda: os.path.exists(path) and os.path.getsize(path) > 0)


def iteration_of(status):
    m = re.match(r"iteration (\d+)", status)
    return int(m.group(1)) if m else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exe", required=True)
    parser.add_argument("--sample", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    species = os.path.join(args.sample, "species.nwk")
    families_file = os.path.join(args.sample, "families.txt")
    family_count = sum(1 for line in open(families_file) if line.startswith("- "))

    step("starting the workbench")
    wb = Workbench(args.exe, os.path.join(args.out, "workbench.log"))
    window = wb.find(pyatspi.ROLE_FRAME, name=re.compile("gpurec workbench"))

    step("File ▸ Open data…")
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="File"))
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="Open data…"))
    dialog = wb.find(pyatspi.ROLE_DIALOG, name="Open data")
    wb.type_into(wb.find(pyatspi.ROLE_TEXT, name="Species tree", root=dialog), species)
    wb.type_into(wb.find(pyatspi.ROLE_TEXT, name="Families file", root=dialog), families_file)
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Open", root=dialog))
    wait_for("the dataset in the status bar",
             lambda: f"· {family_count} families" in wb.label("Loaded dataset"), timeout=90)
    wait_for("the engine", lambda: "Engine ready on" in wb.log_text())

    step("rate mode: per species (a run long enough to pause)")
    wb.click(wb.find(pyatspi.ROLE_COMBO_BOX, name="global (one D, L, T)"))  # named by its choice
    time.sleep(0.5)
    xdotool("key", "Down")
    xdotool("key", "Return")
    wait_for("per-species rates", lambda: "Rates reset to the starting values (specieswise mode)" in wb.log_text())

    step("Optimise")
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Optimise"))
    wait_for("iterations > 0 in the status bar", lambda: (iteration_of(wb.label("Current run")) or 0) >= 1,
             timeout=60, describe=lambda: f"status bar: '{wb.label('Current run')}'; log:\n{wb.log_text()}")

    step("Pause")
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Pause"))
    wait_for("the run to pause", lambda: wb.label("Current run").endswith("· paused"))
    paused_at = iteration_of(wb.label("Current run"))
    time.sleep(1.5)
    if iteration_of(wb.label("Current run")) != paused_at:
        raise SmokeFailure("iterations went on while paused")

    step("Resume")
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Resume"))
    wait_for("an iteration after resuming",
             lambda: (iteration_of(wb.label("Current run")) or 0) > paused_at)

    step("Stop")
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Stop"))
    done = wait_for("the end of the run",
                    lambda: re.search(r"done after (\d+) iterations?", wb.label("Current run")))
    iterations = int(done.group(1))
    if iterations <= paused_at:
        raise SmokeFailure(f"the run ended after {iterations} iterations, paused at {paused_at}")

    step("File ▸ Save session…")
    session_path = os.path.join(args.out, "session.gpurec.json")
    xdotool("key", "ctrl+s")
    wb.save_with_dialog(session_path)

    def sampled_count():
        return len(re.findall(r"Showing \d+ reconciliation\(s\) of 1 family", wb.log_text()))

    step("Help ▸ Guided tour: its duplication, beside the truth")
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="Help"))
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="Guided tour"))
    wb.find(pyatspi.ROLE_LABEL, name="A simulated dataset")
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Next stop of the tour"))
    wb.find(pyatspi.ROLE_LABEL, name="What a duplication looks like")
    truth = wb.find(pyatspi.ROLE_CHECK_BOX, name="Show the true reconciliation beside the sampled ones")
    wait_for("the truth shown", lambda: truth.getState().contains(pyatspi.STATE_CHECKED))
    wait_for("the tour's family sampled", lambda: sampled_count() == 1)

    step("sample the first families and export")
    table = wb.find(pyatspi.ROLE_TABLE, name="Families")
    first = wait_for("the first family row", lambda: table.queryTable().getAccessibleAt(0, 0))
    wb.click(first)
    wb.click(wb.find(pyatspi.ROLE_PAGE_TAB, name="Reconciliations"))
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Sample"))
    wait_for("the sampled reconciliations", lambda: sampled_count() == 2)
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Export families"))
    families_csv = os.path.join(args.out, "families.csv")
    wb.save_with_dialog(families_csv)

    step("tell the drawn sample's story and step through it")
    wb.click(wb.find(pyatspi.ROLE_PAGE_TAB, name="Backtracking"))
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Tell the drawn sample's story"))
    told = wait_for("the story", lambda: re.search(r"Story of sample \d+ of \S+: (\d+) draws", wb.log_text()))
    draws = int(told.group(1))
    for _ in range(2):
        wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Next draw"))
    wait_for(f"draw 3 of {draws}", lambda: f"Draw 3 of {draws}" in wb.label("Story step status"),
             describe=lambda: wb.label("Story step status"))

    step("species-tree search from a random tree, stopped after 10 candidates")
    wb.click(wb.find(pyatspi.ROLE_PAGE_TAB, name="Species-tree search"))
    wb.click(wb.find(pyatspi.ROLE_COMBO_BOX, name="the working tree"))  # named by its choice
    time.sleep(0.5)
    for key in ("Down", "Down", "Return"):  # the working tree, MiniNJ, a random tree
        xdotool("key", key)
    wb.find(pyatspi.ROLE_COMBO_BOX, name="a random tree")
    def type_factor(what, name, value):
        box = wb.find(pyatspi.ROLE_SPIN_BUTTON, name=name)
        wb.type_into(box, str(value))
        xdotool("key", "Tab")
        wait_for(f"the {what} at {value}", lambda: box.queryValue().currentValue == value,
                 describe=lambda: str(box.queryValue().currentValue))
    # The SPR cutoff (2 mean drops instead of 1), the SPR memory (half a mean drop) and the
    # pre-screen's confirming stage (3 times its families instead of 2.5), typed.
    type_factor("SPR cutoff", "SPR cutoff: regrafts past a drop of this many mean drops are not tried", 2)
    type_factor("SPR memory", "SPR memory: moves that fell this many mean drops below an earlier tree are not "
                "tried again", 0.5)
    type_factor("confirming stage", "Confirming stage: candidates the pre-screen cannot rule out are scored on "
                "this many times its families first", 3)
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Start the species-tree search"))
    wait_for("the search's start in the log",
             lambda: "Species-tree search (HYBRID from a random tree, seed 123) started on" in wb.log_text(),
             describe=lambda: wb.log_text())

    def candidates():
        m = re.match(r"Candidate (\d+)", wb.label("Species-tree search status"))
        return int(m.group(1)) if m else 0
    wait_for("10 candidates scored", lambda: candidates() >= 10, timeout=90,
             describe=lambda: wb.label("Species-tree search status"))
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Stop the species-tree search, keeping the best tree"))
    stopped = wait_for("the search to stop", lambda: re.match(
        r"Stopped after (\d+) candidates .*log-likelihood (-[\d,.]+), start (-[\d,.]+)",
        wb.label("Species-tree search status")), describe=lambda: wb.label("Species-tree search status"))
    best_ll, start_ll = (float(g.replace(",", "")) for g in stopped.groups()[1:])
    if not best_ll >= start_ll:
        raise SmokeFailure(f"the search's best tree ({best_ll}) is worse than its start ({start_ll})")
    wb.click(wb.find(pyatspi.ROLE_PAGE_TAB, name="Compare"))
    wait_for("the comparison", lambda: re.match(r"(Robinson–Foulds distance \d+|Same rooted tree)",
                                                wb.label("How the compared trees differ")),
             describe=lambda: wb.label("How the compared trees differ"))
    # "Every name" sits in the tab bar's corner, shown with the Compare tab: ticked and unticked.
    every = wb.find(pyatspi.ROLE_CHECK_BOX, name="Name every species in the comparison")
    for ticked in (True, False):
        wb.click(every)
        wait_for("Every name " + ("ticked" if ticked else "unticked"),
                 lambda: every.getState().contains(pyatspi.STATE_CHECKED) == ticked)
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Save the best species tree as Newick"))
    best_tree = os.path.join(args.out, "best.newick")
    wb.save_with_dialog(best_tree)
    leaves = lambda text: sorted(re.findall(r"[(,]([^(),:;]+)", text))
    if leaves(open(best_tree).read()) != leaves(open(species).read()):
        raise SmokeFailure("the saved species tree has other leaves than the loaded one")

    step("View ▸ Presenter view, and back")
    for hidden in (True, False):
        wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="View"))
        wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="Presenter view"))
        wait_for("the docks to " + ("hide" if hidden else "come back"),
                 lambda: bool(wb.find_all(pyatspi.ROLE_TEXT, name="Log")) != hidden)

    step("checking what the workbench wrote")
    session = json.load(open(session_path))
    history = session["history"]
    if len(history) != iterations + 1 or [h["iteration"] for h in history] != list(range(iterations + 1)):
        raise SmokeFailure(f"the session holds {len(history)} iterations of history, expected {iterations + 1}")
    best = min(h["nll_bits"] for h in history)
    if not best < history[0]["nll_bits"]:
        raise SmokeFailure("the saved history shows no progress")
    rates = session["optimization"]  # session format 2: the rates are the run's checkpoint
    if rates["mode"] != "specieswise" or len(rates["theta"]) != 3 * len(rates["rows"]):
        raise SmokeFailure("the session's rates are not one D, L, T per species")
    rows = list(csv.DictReader(open(families_csv)))
    if len(rows) != family_count:
        raise SmokeFailure(f"families.csv has {len(rows)} rows for {family_count} families")
    sampled = [r for r in rows if r.get("sampled_duplications")]
    if len(sampled) != 1 or sampled[0]["family"] != rows[0]["family"] and not sampled:
        raise SmokeFailure(f"families.csv shows sampled events for {len(sampled)} families, expected 1")
    log = wb.log_text()
    for expected in ["Paused", "Resumed",
                     f"Optimisation finished after {iterations} iterations: stopped by you.",
                     f"Session saved to {session_path}",
                     f"Saved the best species tree of the search to {best_tree}"]:
        if expected not in log:
            raise SmokeFailure(f"the log lacks '{expected}':\n{log}")
    if log.count("Engine ready on") != 1:
        raise SmokeFailure(f"the engine was rebuilt during the run:\n{log}")

    step("pairwise transfers on the teaching sample: the Transfer rates tab")
    teaching = os.path.join(os.path.dirname(os.path.abspath(args.sample)), "teaching")
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="File"))
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="Open data…"))
    dialog = wb.find(pyatspi.ROLE_DIALOG, name="Open data")
    wb.type_into(wb.find(pyatspi.ROLE_TEXT, name="Species tree", root=dialog), os.path.join(teaching, "species.nwk"))
    wb.type_into(wb.find(pyatspi.ROLE_TEXT, name="Families file", root=dialog), os.path.join(teaching, "families.txt"))
    pairwise = wb.find(pyatspi.ROLE_CHECK_BOX, name="Pairwise transfers", root=dialog)
    wb.click(pairwise)
    wait_for("pairwise transfers ticked", lambda: pairwise.getState().contains(pyatspi.STATE_CHECKED))
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Open", root=dialog))
    wait_for("the engine on the teaching sample", lambda: wb.log_text().count("Engine ready on") == 2, timeout=90)
    wb.click_tab("Transfer rates")  # past the tab bar's arrows at 1600×1000
    table = wb.find(pyatspi.ROLE_TABLE, name="Transfer pairs by rate")

    def table_rows():
        t = table.queryTable()
        return [(t.getAccessibleAt(r, 0).name, t.getAccessibleAt(r, 1).name) for r in range(t.nRows)]
    pairs = len(wait_for("the transfer pairs in the table", table_rows))
    step(f"{pairs} transfer pairs: zoom into the matrix, filter the table")
    heat_map = wb.find_any("Transfer rate matrix")
    width = lambda: heat_map.queryComponent().getExtents(pyatspi.DESKTOP_COORDS).width
    before = width()
    wb.click(wb.find(pyatspi.ROLE_PUSH_BUTTON, name="Zoom into the transfer rate matrix"))
    wait_for("larger cells", lambda: width() > before, describe=lambda: f"matrix {width()} px wide, before {before}")
    wb.type_into(wb.find(pyatspi.ROLE_TEXT, name="Filter transfer pairs"), "Escherichia")
    rows = wait_for("the pairs of Escherichia", lambda: (lambda r: r if 0 < len(r) < pairs else None)(table_rows()),
                    describe=lambda: f"{len(table_rows())} rows of {pairs}")
    if not all("Escherichia" in donor + recipient for donor, recipient in rows):
        raise SmokeFailure(f"the filtered table holds pairs without Escherichia: {rows}")

    step("File ▸ Quit")  # clicked: without a window manager, keys after a dialog may go nowhere
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="File"))
    wb.click(wb.find(pyatspi.ROLE_MENU_ITEM, name="Quit"))
    status = wb.process.wait(timeout=30)
    if status != 0:
        raise SmokeFailure(f"the workbench exited with status {status}")
    step(f"passed ({iterations} iterations, paused at {paused_at})")


if __name__ == "__main__":
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(SmokeFailure(f"not done after {WHOLE_RUN} s")))
    signal.alarm(WHOLE_RUN)
    try:
        main()
    except SmokeFailure as e:
        print(f"gui-smoke: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
