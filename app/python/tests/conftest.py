"""Shared inputs: the reference data and the gpurec CLI the Python results are compared with."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
DATA = pathlib.Path(os.environ.get("GPUREC_SHARED_DATA", ROOT.parent / "shared" / "data"))
CLI = os.environ.get("GPUREC_CLI", str(ROOT / "build" / "release" / "app" / "gpurec"))


def dataset(name):
    folder = DATA / name
    if not folder.is_dir():
        pytest.skip(f"reference data {folder} not present")
    return folder


@pytest.fixture
def trees2():
    """alerax/test_trees_2: one family of 11 genes on 15 species nodes, with reference.json."""
    folder = dataset("alerax/test_trees_2")
    return {"species": folder / "sp.nwk", "gene": folder / "g.nwk", "families": folder / "families.txt",
            "reference": json.loads((folder / "reference.json").read_text())}


@pytest.fixture
def simulated2():
    """simulated_2: 19 species, 3 families of MrBayes trees with Phyldog mappings."""
    folder = dataset("simulated_2")
    return {"species": folder / "species.nwk", "families": folder / "families.txt"}


def run_cli(*args, cwd=None):
    """Runs the gpurec CLI; its stdout, or an assertion error carrying its stderr."""
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def cli_failure(*args):
    done = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    assert done.returncode != 0
    return done.stderr
