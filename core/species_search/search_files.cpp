#include "species_search/search_files.hpp"

#include "io/csv_field.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"

#include <functional>
#include <stdexcept>

namespace gpurec {

namespace {

// The tree with AleRax's node names, lengths 1, and `relabel` applied to every node it names.
std::string labelledNewick(const SpeciesTopology& tree,
                           const std::function<std::string(int, const std::string&)>& relabel) {
    NewickTree t = tree.toNewickTree();
    const std::vector<std::string> names = nodeNames(tree);
    for (int n = 0; n < tree.nodeCount(); ++n)
        t.nodes[n].label = relabel(n, names[n]);
    return writeNewick(t, {true, true});
}

std::string rootNewick(const SpeciesTopology& tree, const std::vector<RootSupport>& roots,
                       const std::function<std::string(const RootSupport&)>& value) {
    return labelledNewick(tree, [&](int n, const std::string& name) {
        if (n == tree.root()) return name;
        const Clade split = tree.rootSplitAbove(n);
        for (const RootSupport& r : roots)
            if (r.split == split) return tree.isLeaf(n) ? name + "_" + value(r) : value(r);
        return name;
    });
}

} // namespace

std::string branchSupportNewick(const SpeciesTopology& tree, const std::map<Clade, int>& supports,
                                int replicates) {
    const std::vector<Clade> clades = tree.clades();
    return labelledNewick(tree, [&](int n, const std::string& name) {
        if (tree.isLeaf(n)) return name;
        if (n == tree.root()) return std::to_string(replicates);
        auto it = supports.find(splitAbove(tree, clades, n));
        // A root child whose sibling is a leaf has a trivial split: in every tree.
        return std::to_string(it == supports.end() ? replicates : it->second);
    });
}

std::string rootLlrNewick(const SpeciesTopology& tree, const std::vector<RootSupport>& roots) {
    return rootNewick(tree, roots,
                      [](const RootSupport& r) { return exactNumberText(r.logLikelihoodRatio); });
}

std::string rootRellNewick(const SpeciesTopology& tree, const std::vector<RootSupport>& roots) {
    return rootNewick(tree, roots, [](const RootSupport& r) { return std::to_string(r.rell); });
}

std::string searchTraceHeader() {
    return "step,move,log_likelihood,accepted,seconds,d,l,t,tree,screened";
}

std::string searchTraceRow(const SearchStep& s) {
    return std::to_string(s.index) + "," + csvField(s.move) + "," + exactNumberText(s.logLikelihood) + "," +
           (s.accepted ? "1" : "0") + "," + exactNumberText(s.seconds) + "," + exactNumberText(s.rates.d) +
           "," + exactNumberText(s.rates.l) + "," + exactNumberText(s.rates.t) + "," + csvField(s.newick) +
           "," + (s.screened ? "1" : "0");
}

double lastTraceSeconds(const std::string& traceText) {
    const std::size_t end = traceText.find_last_not_of('\n');
    if (end == std::string::npos) return 0.0;
    const std::size_t begin = traceText.rfind('\n', end);
    if (begin == std::string::npos) return 0.0; // the header alone
    // The fifth field (step, move, log_likelihood, accepted, seconds); a quoted move may hold commas.
    int field = 0;
    bool quoted = false;
    std::size_t start = begin + 1;
    for (std::size_t i = begin + 1; i <= end; ++i) {
        const char c = traceText[i];
        if (c == '"') quoted = !quoted;
        if (c != ',' || quoted) continue;
        if (field++ == 4) {
            const std::string text = traceText.substr(start, i - start);
            std::size_t used = 0;
            double seconds = 0;
            try {
                seconds = std::stod(text, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != text.size())
                throw std::invalid_argument("the search trace's last row has seconds '" + text +
                                            "', not a number");
            return seconds;
        }
        start = i + 1;
    }
    throw std::invalid_argument("the search trace's last row has no seconds column");
}

void writeSearchTrees(const std::string& folder, const SpeciesSearchResult& result,
                      TransferConstraint constraint, SearchStrategy strategy) {
    // Under RELDATED with AleRax's rank-derived lengths, which carry the dating.
    writeFileAtomically(folder + "/inferred_species_tree.newick",
                        result.best.toSpeciesTree().toNewickFor(constraint) + "\n");
    if (strategy == SearchStrategy::Hybrid) {
        writeFileAtomically(folder + "/species_tree_support_kh.newick",
                            branchSupportNewick(result.best, result.kh, result.replicates) + "\n");
        writeFileAtomically(folder + "/species_tree_support_bp.newick",
                            branchSupportNewick(result.best, result.bootstrap, result.replicates) + "\n");
    }
    if (!result.roots.empty()) {
        writeFileAtomically(folder + "/species_tree_root_llr.newick",
                            rootLlrNewick(result.best, result.roots) + "\n");
        writeFileAtomically(folder + "/species_tree_root_rell.newick",
                            rootRellNewick(result.best, result.roots) + "\n");
    }
}

} // namespace gpurec
