"""What both front ends (NumPy and torch) share: the engine model and its solver options."""
import warnings

from . import _engine

_MODES = {"global", "specieswise", "genewise"}


def _as_list(paths):
    if paths is None:
        return []
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        return [str(paths)]
    return [str(p) for p in paths]


class EngineState:
    """The loaded input, backend and warm starts (gpurec._engine.Model) with the solver options."""

    def __init__(self, species_tree, gene_trees=None, families=None, mappings=None, mode="global",
                 device="auto", solver_options=None, rates=(0.1, 0.1, 0.1), transfer_constraint="PARENTS",
                 gene_tree_rooting="UNIFORM", origination="UNIFORM", min_covered_species=4, strict=True, threads=0,
                 gpu_memory_bytes=0, rec_model="UndatedDTL", no_dup=False, no_dl=False, no_tl=False,
                 speciation_gamma_categories=1, gamma_alpha=1.0, highways_file=None, pairwise_transfers=False,
                 prune_species_tree=False, fraction_missing_file=None):
        if mode not in _MODES:
            # The engine also reads AleRax's names; the original API has these three.
            raise ValueError(f"mode must be global, specieswise or genewise, got {mode!r}")
        self._options = _options_from(solver_options)
        self.engine = _engine.Model(
            species_tree=str(species_tree), gene_trees=_as_list(gene_trees),
            families="" if families is None else str(families), mappings=_as_list(mappings), mode=mode,
            device=str(device), rates=tuple(float(r) for r in rates), transfer_constraint=transfer_constraint,
            gene_tree_rooting=gene_tree_rooting, origination=origination, rec_model=str(rec_model),
            no_dup=bool(no_dup), no_dl=bool(no_dl), no_tl=bool(no_tl), min_covered_species=int(min_covered_species),
            strict=bool(strict), threads=int(threads), gpu_memory_bytes=float(gpu_memory_bytes),
            solver_options=self._options, speciation_gamma_categories=int(speciation_gamma_categories),
            gamma_alpha=float(gamma_alpha), highways_file="" if highways_file is None else str(highways_file),
            pairwise_transfers=bool(pairwise_transfers), prune_species_tree=bool(prune_species_tree),
            fraction_missing_file="" if fraction_missing_file is None else str(fraction_missing_file))
        for line in self.engine.warnings:
            warnings.warn(line, stacklevel=3)

    @property
    def solver_options(self):
        return self._options

    @solver_options.setter
    def solver_options(self, options):
        self._options = _options_from(options)

    def configure_solver(self, options=None, **knobs):
        """Sets solver knobs (a dict and/or keywords); none changes when one is out of range."""
        self._options.update(options, **knobs)

    def replan_batches(self, memory_bytes=0, max_families_per_batch=0):
        """Re-plans the backend's batches for a device memory budget (0: the backend's default)."""
        self.engine.replan(float(memory_bytes), int(max_families_per_batch))

    def clear_warm_starts(self):
        self.engine.clear_warm_starts()

    def evaluate(self, theta, extra, gradient):
        result = self.engine.evaluate(theta, extra, self._options, gradient)
        for line in result["stats"]["warnings"]:
            warnings.warn(line, RuntimeWarning, stacklevel=4)
        return result


def _options_from(options):
    if options is None:
        return _engine.SolverOptions()
    if isinstance(options, _engine.SolverOptions):
        return options
    return _engine.SolverOptions(dict(options))
