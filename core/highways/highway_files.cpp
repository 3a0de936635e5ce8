#include "highways/highway_files.hpp"

#include "io/input_error.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/result_writer.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <utility>

namespace gpurec {

namespace {

struct Cell {
    std::string text;
    int column; // 1-based, where the cell's text starts
};

// Comma-separated cells with the blanks around them removed.
std::vector<Cell> commaCells(const std::string& line) {
    std::vector<Cell> cells;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = std::min(line.find(',', start), line.size());
        std::size_t a = start, b = end;
        while (a < b && std::isspace(static_cast<unsigned char>(line[a])))
            ++a;
        while (b > a && std::isspace(static_cast<unsigned char>(line[b - 1])))
            --b;
        cells.push_back({line.substr(a, b - a), static_cast<int>(a) + 1});
        if (end == line.size()) break;
        start = end + 1;
    }
    return cells;
}

bool blankOrComment(const std::string& line) {
    const auto first = std::find_if(line.begin(), line.end(),
                                    [](char c) { return !std::isspace(static_cast<unsigned char>(c)); });
    return first == line.end() || *first == '#';
}

int node(const SpeciesTree& tree, const Cell& cell, const std::string& path, int lineNo) {
    const int e = tree.find(cell.text);
    if (e < 0)
        throw InputError(path, lineNo, cell.column,
                         "species node '" + cell.text + "' is not in the species tree");
    return e;
}

} // namespace

bool highwayAllowed(const SpeciesTree& tree, TransferConstraint constraint, const Highway& highway) {
    return highway.source != highway.destination &&
           tree.isRecipient(highway.source, highway.destination, constraint);
}

std::vector<Highway> readHighwayCandidates(const std::string& path, const SpeciesTree& tree,
                                           TransferConstraint constraint) {
    std::istringstream in(readTextFile(path));
    std::string line;
    std::vector<Highway> out;
    std::set<std::pair<int, int>> seen;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        if (blankOrComment(line)) continue;
        const std::vector<Cell> cells = commaCells(line);
        if (cells.size() != 2 || cells[0].text.empty() || cells[1].text.empty())
            throw InputError(path, lineNo, 1, "expected 'FROM,TO' (species node labels, or *)");
        std::vector<int> from, to;
        for (int e = 0; e < tree.size(); ++e) {
            if (cells[0].text == "*") from.push_back(e);
            if (cells[1].text == "*") to.push_back(e);
        }
        if (from.empty()) from.push_back(node(tree, cells[0], path, lineNo));
        if (to.empty()) to.push_back(node(tree, cells[1], path, lineNo));
        for (int a : from)
            for (int b : to) {
                const Highway h{a, b};
                if (highwayAllowed(tree, constraint, h) && seen.insert({a, b}).second) out.push_back(h);
            }
    }
    return out;
}

std::vector<HighwayRecord> readHighways(const std::string& path, const SpeciesTree& tree,
                                        TransferConstraint constraint) {
    std::istringstream in(readTextFile(path));
    std::string line;
    std::vector<HighwayRecord> out;
    std::set<std::pair<int, int>> seen;
    bool first = true;
    for (int lineNo = 1; std::getline(in, line); ++lineNo) {
        if (blankOrComment(line)) continue;
        const std::vector<Cell> cells = commaCells(line);
        const bool header = first && !cells.empty() && cells[0].text == "src";
        first = false;
        if (header) continue;
        if (cells.size() < 3 || cells.size() > 4)
            throw InputError(path, lineNo, 1, "expected 'src, dest, proba, llDiff'");
        HighwayRecord r;
        r.highway = {node(tree, cells[0], path, lineNo), node(tree, cells[1], path, lineNo)};
        auto number = [&](const Cell& c, const char* what) {
            char* end = nullptr;
            const double v = std::strtod(c.text.c_str(), &end);
            if (c.text.empty() || end != c.text.c_str() + c.text.size() || !std::isfinite(v))
                throw InputError(path, lineNo, c.column,
                                 std::string("expected a number for ") + what + ", found '" + c.text + "'");
            return v;
        };
        r.rate = number(cells[2], "proba");
        if (!(r.rate > 0))
            throw InputError(path, lineNo, cells[2].column,
                             "a highway's proba must be positive, found '" + cells[2].text + "'");
        if (cells.size() == 4) r.llDiff = number(cells[3], "llDiff");
        if (!highwayAllowed(tree, constraint, r.highway))
            throw InputError(path, lineNo, cells[1].column,
                             "a transfer from " + cells[0].text + " cannot reach " + cells[1].text +
                                 " under " + toString(constraint));
        if (!seen.insert({r.highway.source, r.highway.destination}).second)
            throw InputError(path, lineNo, 1,
                             "highway " + cells[0].text + " -> " + cells[1].text + " given twice");
        out.push_back(r);
    }
    return out;
}

void writeHighways(const std::string& path, const SpeciesTree& tree,
                   const std::vector<HighwayRecord>& records, bool withGain) {
    std::string text = withGain ? "src, dest, proba, llDiff\n" : "src, dest, proba\n";
    for (const HighwayRecord& r : records)
        text += tree.name(r.highway.source) + ", " + tree.name(r.highway.destination) + ", " +
                exactNumberText(r.rate) + (withGain ? ", " + exactNumberText(r.llDiff) : "") + "\n";
    writeFileAtomically(path, text);
}

void writeHighwayTransfers(const std::string& folder, const SpeciesTree& tree,
                           const std::vector<Highway>& highways, const std::vector<std::string>& families,
                           const std::vector<const std::map<std::pair<int, int>, double>*>& perFamily) {
    ensureDirectory(folder);
    for (const Highway& h : highways) {
        std::vector<std::pair<double, std::string>> rows;
        for (std::size_t f = 0; f < families.size(); ++f) {
            if (!perFamily[f]) continue;
            const auto it = perFamily[f]->find({h.source, h.destination});
            rows.emplace_back(it == perFamily[f]->end() ? 0.0 : it->second, families[f]);
        }
        std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second > b.second;
        });
        std::string text = "fam, transfers\n";
        for (const auto& [mean, family] : rows) {
            if (mean == 0.0) break;
            text += family + ", " + exactNumberText(mean) + "\n";
        }
        writeFileAtomically(
            folder + "/highway_" + tree.name(h.source) + "_to_" + tree.name(h.destination) + ".txt", text);
    }
}

} // namespace gpurec
