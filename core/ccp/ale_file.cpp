#include "ccp/ale_file.hpp"

#include "io/input_error.hpp"
#include "io/number_text.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace gpurec {

bool isAleFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[4] = {};
    in.read(head, sizeof head);
    const std::streamsize got = in.gcount();
    const std::string start(head, static_cast<std::size_t>(got));
    const std::size_t first = start.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    return start.size() > first && start[first] == '#';
}

namespace {

using Word = std::uint64_t;
using Bits = std::vector<Word>;

// The sections in the order ALE writes them; every one is required.
enum Section {
    Constructor,
    Observations,
    BipCounts,
    BipBls,
    DipCounts,
    LastId,
    LeafId,
    SetId,
    End,
    SectionCount
};
constexpr const char* kSectionName[SectionCount] = {
    "#constructor_string", "#observations", "#Bip_counts", "#Bip_bls", "#Dip_counts",
    "#last_leafset_id",    "#leaf-id",      "#set-id",     "#END"};

// Weights of one parent, and all root weights together, must add up to 1 this closely.
constexpr double kSumTolerance = 1e-9;

struct Token {
    std::string text;
    int column;
};

// ALE splits its fields on tabs or spaces; a trailing '\r' (a Windows line end) is a blank too.
std::vector<Token> splitFields(const std::string& line) {
    std::vector<Token> out;
    std::size_t i = 0;
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (i < line.size()) {
        while (i < line.size() && blank(line[i]))
            ++i;
        if (i == line.size()) break;
        const std::size_t start = i;
        while (i < line.size() && !blank(line[i]))
            ++i;
        out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
    }
    return out;
}

std::optional<double> finiteNumber(const std::string& text) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<int> positiveId(const std::string& text) {
    int v = 0;
    if (text.empty() || text[0] < '0' || text[0] > '9') return std::nullopt; // no sign
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 1) return std::nullopt;
    return v;
}

struct Place {
    int line = 0, column = 0;
};

struct CountEntry {
    double value;
    Place place; // of the set id
    Place valuePlace;
};

struct DipEntry {
    int parent, left, right;
    double count;
    Place place;
};

struct SetEntry {
    Bits bits;
    int size = 0;
    Place place;
};

class AleParser {
  public:
    AleParser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

    AleContents run() {
        std::size_t pos = 0;
        int lineNo = 0;
        while (pos < text_.size()) {
            const std::size_t newline = text_.find('\n', pos);
            const std::size_t end = newline == std::string::npos ? text_.size() : newline;
            ++lineNo;
            readLine(text_.substr(pos, end - pos), lineNo);
            pos = end + 1;
        }
        if (section_ < 0) fail(1, 0, "empty file (an .ale file starts with '#constructor_string')");
        if (section_ != End)
            fail(lineNo, 0, std::string("the file ends before section '") + kSectionName[section_ + 1] + "'");
        return finish();
    }

  private:
    [[noreturn]] void fail(int line, int column, const std::string& problem) const {
        throw InputError(source_, line, column, problem);
    }
    [[noreturn]] void fail(const Place& p, const std::string& problem) const {
        fail(p.line, p.column, problem);
    }

    void readLine(const std::string& line, int lineNo) {
        if (const std::size_t nul = line.find('\0'); nul != std::string::npos)
            fail(lineNo, static_cast<int>(nul) + 1,
                 "NUL byte (\\0) in a text file: the file is binary or corrupted");
        std::vector<Token> tokens = splitFields(line);
        if (tokens.empty()) return; // blank lines carry nothing
        const Token& first = tokens.front();
        if (first.text[0] == '#') { // a Newick tree never starts with '#'
            readHeader(tokens, lineNo);
            return;
        }
        if (section_ < 0) fail(lineNo, first.column, "expected '#constructor_string' on the first line");
        const Place at{lineNo, first.column};
        switch (section_) {
        case Constructor: {
            if (hasConstructor_)
                fail(at, "a second line in '#constructor_string' (it holds one Newick tree)");
            constructor_ = line;
            constructorLine_ = lineNo;
            hasConstructor_ = true;
            break;
        }
        case Observations: {
            expectFields(tokens, 1, lineNo, "the number of observed trees");
            if (observations_ > 0) fail(at, "a second line in '#observations' (it holds one number)");
            const std::optional<double> v = finiteNumber(first.text);
            if (!v || *v < 1 || *v != std::floor(*v) || *v > INT_MAX)
                fail(at, "the number of observations must be a whole number from 1 to " +
                             std::to_string(INT_MAX) + ", found '" + first.text + "'");
            observations_ = static_cast<int>(*v);
            break;
        }
        case BipCounts:
        case BipBls: {
            const bool counts = section_ == BipCounts;
            expectFields(tokens, 2, lineNo, "'setId value'");
            const int id = setId(tokens[0], lineNo);
            const std::optional<double> v = finiteNumber(tokens[1].text);
            const Place valueAt{lineNo, tokens[1].column};
            if (counts && (!v || *v <= 0))
                fail(valueAt, "a count must be a positive number, found '" + tokens[1].text + "'");
            if (!counts && !v) // any sign: gene trees may carry negative lengths
                fail(valueAt, "a branch-length sum must be a finite number, found '" + tokens[1].text + "'");
            auto& table = counts ? bip_ : bls_;
            const auto [it, inserted] = table.emplace(id, CountEntry{*v, at, valueAt});
            if (!inserted)
                fail(at, "set id " + std::to_string(id) + " listed twice in '" + kSectionName[section_] +
                             "' (first at line " + std::to_string(it->second.place.line) + ")");
            break;
        }
        case DipCounts: {
            expectFields(tokens, 4, lineNo, "'parent child1 child2 count'");
            DipEntry d{setId(tokens[0], lineNo), setId(tokens[1], lineNo), setId(tokens[2], lineNo), 0, at};
            const std::optional<double> v = finiteNumber(tokens[3].text);
            if (!v || *v <= 0)
                fail(lineNo, tokens[3].column,
                     "a count must be a positive number, found '" + tokens[3].text + "'");
            d.count = *v;
            if (d.left > d.right) std::swap(d.left, d.right);
            const std::uint64_t key = (std::uint64_t(unsigned(d.parent)) << 32) | unsigned(d.left);
            const auto [it, inserted] = dipIndex_.emplace(key, static_cast<int>(dips_.size()));
            if (!inserted && dips_[it->second].right == d.right)
                fail(at, "split " + std::to_string(d.parent) + " -> " + std::to_string(d.left) + " + " +
                             std::to_string(d.right) + " listed twice in '#Dip_counts' (first at line " +
                             std::to_string(dips_[it->second].place.line) + ")");
            dips_.push_back(d);
            break;
        }
        case LastId: {
            expectFields(tokens, 1, lineNo, "the largest set id");
            if (lastId_ > 0) fail(at, "a second line in '#last_leafset_id' (it holds one set id)");
            lastId_ = setId(first, lineNo);
            break;
        }
        case LeafId: {
            expectFields(tokens, 2, lineNo, "'name leafId'");
            const std::optional<int> id = positiveId(tokens[1].text);
            if (!id)
                fail(lineNo, tokens[1].column,
                     "a leaf id must be a whole number >= 1, found '" + tokens[1].text + "'");
            const auto [byName, newName] =
                leafByName_.emplace(first.text, static_cast<int>(leafNames_.size()));
            if (!newName)
                fail(at, "leaf name '" + first.text + "' listed twice in '#leaf-id' (first at line " +
                             std::to_string(leafPlace_[byName->second].line) + ")");
            const auto [byId, newId] = leafById_.emplace(*id, static_cast<int>(leafNames_.size()));
            if (!newId)
                fail(lineNo, tokens[1].column,
                     "leaf id " + std::to_string(*id) + " listed twice in '#leaf-id' (first at line " +
                         std::to_string(leafPlace_[byId->second].line) + ")");
            leafNames_.push_back(first.text);
            leafIds_.push_back(*id);
            leafPlace_.push_back(at);
            leafIdPlace_.push_back({lineNo, tokens[1].column});
            break;
        }
        case SetId:
            readSet(tokens, lineNo);
            break;
        default:
            fail(at, "text after '#END'");
        }
    }

    void readHeader(const std::vector<Token>& tokens, int lineNo) {
        const Token& first = tokens.front();
        const int expected = section_ + 1;
        if (section_ == End) fail(lineNo, first.column, "text after '#END'");
        if (tokens.size() > 1)
            fail(lineNo, tokens[1].column, "unexpected text after section header '" + first.text + "'");
        const auto* found = std::find(std::begin(kSectionName), std::end(kSectionName), first.text);
        if (found == std::end(kSectionName))
            fail(lineNo, first.column,
                 "unknown section '" + first.text + "' (expected '" + kSectionName[expected] + "')");
        if (found - std::begin(kSectionName) != expected)
            fail(lineNo, first.column,
                 "section '" + first.text + "' out of order: expected '" + kSectionName[expected] + "' here");
        if (section_ == Constructor && !hasConstructor_)
            fail(lineNo, first.column, "'#constructor_string' has no tree");
        if (section_ == Observations && observations_ == 0)
            fail(lineNo, first.column, "'#observations' has no number");
        if (section_ == LastId && lastId_ == 0)
            fail(lineNo, first.column, "'#last_leafset_id' has no set id");
        section_ = expected;
        headerLine_[section_] = lineNo;
        if (section_ == SetId) checkLeaves(lineNo);
    }

    void expectFields(const std::vector<Token>& tokens, std::size_t n, int lineNo,
                      const std::string& what) const {
        if (tokens.size() == n) return;
        const int column = tokens.size() > n ? tokens[n].column : tokens.back().column;
        fail(lineNo, column,
             "expected " + what + " in '" + kSectionName[section_] + "', found " +
                 std::to_string(tokens.size()) + (tokens.size() == 1 ? " field" : " fields"));
    }

    int setId(const Token& t, int lineNo) const {
        const std::optional<int> id = positiveId(t.text);
        if (!id) fail(lineNo, t.column, "a set id must be a whole number >= 1, found '" + t.text + "'");
        return *id;
    }

    // End of #leaf-id: the leaves are known, so the sets can be checked as they come.
    void checkLeaves(int lineNo) {
        const int n = static_cast<int>(leafNames_.size());
        if (n < 2)
            fail(lineNo, 0, "an .ale file needs at least 2 leaves, '#leaf-id' lists " + std::to_string(n));
        for (int i = 0; i < n; ++i)
            if (leafIds_[i] > n)
                fail(leafIdPlace_[i], "leaf id " + std::to_string(leafIds_[i]) + " is outside 1.." +
                                          std::to_string(n) + " ('#leaf-id' lists " + std::to_string(n) +
                                          " leaves)");
        // Gene indices are the names' ranks, as for a Newick sample.
        std::vector<int> byName(n);
        for (int i = 0; i < n; ++i)
            byName[i] = i;
        std::sort(byName.begin(), byName.end(), [&](int a, int b) { return leafNames_[a] < leafNames_[b]; });
        geneOfLeafId_.assign(n + 1, -1);
        geneOrder_ = byName;
        for (int g = 0; g < n; ++g)
            geneOfLeafId_[leafIds_[byName[g]]] = g;
        words_ = (n + 63) / 64;
    }

    void readSet(const std::vector<Token>& tokens, int lineNo) {
        const int n = static_cast<int>(leafNames_.size());
        const Place at{lineNo, tokens[0].column};
        const int id = setId(tokens[0], lineNo);
        if (id > lastId_)
            fail(at,
                 "set id " + std::to_string(id) + " is above '#last_leafset_id' " + std::to_string(lastId_));
        if (tokens.size() < 2 || tokens[1].text != ":")
            fail(lineNo, tokens.size() < 2 ? 0 : tokens[1].column,
                 "expected ':' after the set id in '#set-id'");
        if (tokens.size() < 3) fail(lineNo, tokens[1].column, "set " + std::to_string(id) + " has no leaf");
        SetEntry s{Bits(words_, 0), 0, at};
        for (std::size_t k = 2; k < tokens.size(); ++k) {
            const std::optional<int> leaf = positiveId(tokens[k].text);
            if (!leaf || *leaf > n)
                fail(lineNo, tokens[k].column,
                     "leaf id '" + tokens[k].text + "' is outside 1.." + std::to_string(n) +
                         " ('#leaf-id' lists " + std::to_string(n) + " leaves)");
            const int g = geneOfLeafId_[*leaf];
            Word& w = s.bits[g / 64];
            const Word bit = Word(1) << (g % 64);
            if (w & bit)
                fail(lineNo, tokens[k].column,
                     "leaf id " + tokens[k].text + " appears twice in set " + std::to_string(id));
            w |= bit;
            ++s.size;
        }
        if (s.size == n)
            fail(at, "set " + std::to_string(id) + " holds all " + std::to_string(n) +
                         " leaves, but the full leaf set has no set id");
        const auto [it, inserted] = sets_.emplace(id, std::move(s));
        if (!inserted)
            fail(at, "set id " + std::to_string(id) + " listed twice in '#set-id' (first at line " +
                         std::to_string(it->second.place.line) + ")");
        const auto [same, fresh] = setByBits_.emplace(it->second.bits, id);
        if (!fresh)
            fail(at, "set " + std::to_string(id) + " has the same leaves as set " +
                         std::to_string(same->second) + " (line " +
                         std::to_string(sets_.at(same->second).place.line) + ")");
    }

    const SetEntry& knownSet(int id, const Place& at, const char* section) const {
        const auto it = sets_.find(id);
        if (it == sets_.end())
            fail(at, "set id " + std::to_string(id) + " of '" + section + "' has no line in '#set-id'");
        return it->second;
    }

    NewickTree checkConstructor() const {
        // Line numbers and columns of the Newick parser are those of the file.
        const std::string padded =
            std::string(static_cast<std::size_t>(constructorLine_ - 1), '\n') + constructor_;
        const std::vector<NewickTree> trees = parseNewick(padded, source_);
        if (trees.size() != 1)
            fail(constructorLine_, 0,
                 "'#constructor_string' must hold one Newick tree, found " + std::to_string(trees.size()));
        const NewickTree& tree = trees.front();
        requireUniqueLeafLabels(tree);
        const std::vector<int> leaves = tree.leaves();
        for (int leaf : leaves)
            if (!leafByName_.count(tree.nodes[leaf].label))
                fail(tree.nodes[leaf].line, tree.nodes[leaf].column,
                     "leaf '" + tree.nodes[leaf].label + "' of the constructor tree is not in '#leaf-id'");
        if (leaves.size() != leafNames_.size())
            fail(constructorLine_, 0,
                 "the constructor tree has " + std::to_string(leaves.size()) +
                     " leaves but '#leaf-id' lists " + std::to_string(leafNames_.size()));
        return tree;
    }

    AleContents finish() const {
        NewickTree constructor = checkConstructor();
        const int n = static_cast<int>(leafNames_.size());
        // Set ids are sorted in sets_ and none is above lastId_: the first gap is the first missing id.
        int id = 1;
        for (auto it = sets_.begin(); it != sets_.end() && it->first == id; ++it)
            ++id;
        if (id <= lastId_)
            fail(headerLine_[End], 0,
                 "set id " + std::to_string(id) +
                     " has no line in '#set-id' (set ids run from 1 to '#last_leafset_id' " +
                     std::to_string(lastId_) + ")");
        std::vector<int> leafSet(n, -1); // gene -> its single-leaf set id
        for (const auto& [id, s] : sets_)
            if (s.size == 1)
                for (int w = 0; w < words_; ++w)
                    if (s.bits[w]) leafSet[w * 64 + __builtin_ctzll(s.bits[w])] = id;
        for (int g = 0; g < n; ++g)
            if (leafSet[g] < 0)
                fail(leafPlace_[geneOrder_[g]],
                     "leaf '" + leafNames_[geneOrder_[g]] + "' has no single-leaf set in '#set-id'");

        // Observed counts per set; a leaf is in every tree unless '#Bip_counts' says otherwise.
        std::map<int, double> count;
        for (const auto& [id, s] : sets_)
            if (s.size == 1) count[id] = observations_;
        for (const auto& [id, e] : bip_) {
            knownSet(id, e.place, "#Bip_counts");
            count[id] = e.value;
        }
        for (const auto& [id, e] : bls_)
            knownSet(id, e.place, "#Bip_bls");

        std::map<int, double> dipSum;
        for (const DipEntry& d : dips_) {
            const SetEntry& parent = knownSet(d.parent, d.place, "#Dip_counts");
            const SetEntry& left = knownSet(d.left, d.place, "#Dip_counts");
            const SetEntry& right = knownSet(d.right, d.place, "#Dip_counts");
            if (parent.size == 1)
                fail(d.place, "split of set " + std::to_string(d.parent) + ", a single leaf");
            if (!bip_.count(d.parent))
                fail(d.place,
                     "split of set " + std::to_string(d.parent) + ", which has no count in '#Bip_counts'");
            bool consistent = left.size + right.size == parent.size;
            for (int w = 0; w < words_ && consistent; ++w)
                consistent =
                    (left.bits[w] & right.bits[w]) == 0 && (left.bits[w] | right.bits[w]) == parent.bits[w];
            if (!consistent)
                fail(d.place, "set " + std::to_string(d.parent) + " is not the disjoint union of sets " +
                                  std::to_string(d.left) + " and " + std::to_string(d.right));
            dipSum[d.parent] += d.count;
        }
        for (const auto& [id, s] : sets_) {
            if (s.size == 1) continue;
            if (!bip_.count(id))
                fail(s.place, "set " + std::to_string(id) + " (" + std::to_string(s.size) +
                                  " leaves) has no count in '#Bip_counts'");
            if (!dipSum.count(id))
                fail(s.place, "set " + std::to_string(id) + " has no split in '#Dip_counts'");
            const CountEntry& b = bip_.at(id);
            if (std::abs(dipSum.at(id) / b.value - 1) > kSumTolerance)
                fail(b.valuePlace, "the splits of set " + std::to_string(id) +
                                       " in '#Dip_counts' add up to " + exactNumberText(dipSum.at(id)) +
                                       ", not its count " + exactNumberText(b.value));
        }
        std::map<int, int> complementOf;
        double total = 0;
        for (const auto& [id, s] : sets_) {
            Bits comp(words_);
            for (int w = 0; w < words_; ++w) {
                const int inWord = std::min(64, n - 64 * w);
                const Word all = inWord == 64 ? ~Word(0) : (Word(1) << inWord) - 1;
                comp[w] = all & ~s.bits[w];
            }
            const auto it = setByBits_.find(comp);
            if (it == setByBits_.end())
                fail(s.place,
                     "set " + std::to_string(id) +
                         " has no complement set in '#set-id' (the root bipartitions need both sides)");
            complementOf[id] = it->second;
            total += count.at(id);
        }
        const double expected = double(observations_) * 2 * (2 * n - 3);
        if (std::abs(total / expected - 1) > kSumTolerance)
            fail(headerLine_[BipCounts], 0,
                 "the counts of all sets (leaves counted " + std::to_string(observations_) +
                     " times unless listed) add up to " + exactNumberText(total) +
                     ", not observations * 2 * (2n - 3) = " + exactNumberText(expected));
        AleContents out = build(count, complementOf);
        out.constructorTree = std::move(constructor);
        return out;
    }

    // The clade order and split weights of buildCladeSet: clades by size, then bits; splits by
    // children; weights are counts over their parent's total.
    AleContents build(const std::map<int, double>& count, const std::map<int, int>& complementOf) const {
        const int n = static_cast<int>(leafNames_.size());
        std::vector<int> ids;
        for (const auto& [id, s] : sets_)
            ids.push_back(id);
        std::sort(ids.begin(), ids.end(), [&](int a, int b) {
            const SetEntry &x = sets_.at(a), &y = sets_.at(b);
            if (x.size != y.size) return x.size < y.size;
            return std::lexicographical_compare(x.bits.begin(), x.bits.end(), y.bits.begin(), y.bits.end());
        });
        std::map<int, int> rank;
        for (int i = 0; i < static_cast<int>(ids.size()); ++i)
            rank[ids[i]] = i;
        const int C = static_cast<int>(ids.size()) + 1;
        AleContents out;
        CladeSet& cs = out.clades;
        for (int g = 0; g < n; ++g)
            cs.geneNames.push_back(leafNames_[geneOrder_[g]]);
        cs.treeCount = observations_;
        cs.cladeSize.resize(C);
        cs.cladeGene.assign(C, -1);
        cs.branchLength.assign(C, 0.0);
        for (int i = 0; i + 1 < C; ++i) {
            const SetEntry& s = sets_.at(ids[i]);
            cs.cladeSize[i] = s.size;
            if (s.size == 1)
                for (int w = 0; w < words_; ++w)
                    if (s.bits[w]) cs.cladeGene[i] = w * 64 + __builtin_ctzll(s.bits[w]);
            // The mean length of the sampled branch above the clade (AleRax reads none).
            if (const auto bl = bls_.find(ids[i]); bl != bls_.end())
                cs.branchLength[i] = bl->second.value / count.at(ids[i]);
        }
        cs.cladeSize[C - 1] = n;
        std::vector<std::vector<CladeSplit>> byParent(C);
        for (const DipEntry& d : dips_) {
            int l = rank.at(d.left), r = rank.at(d.right);
            if (l > r) std::swap(l, r);
            byParent[rank.at(d.parent)].push_back({l, r, d.count});
        }
        // Root bipartitions: the two directed counts of an edge make one unordered split.
        for (const auto& [id, comp] : complementOf) {
            const int l = rank.at(id), r = rank.at(comp);
            if (l < r) byParent[C - 1].push_back({l, r, count.at(id) + count.at(comp)});
        }
        cs.splitOffset.assign(C + 1, 0);
        for (int c = 0; c < C; ++c) {
            auto& list = byParent[c];
            std::sort(list.begin(), list.end(), [](const CladeSplit& a, const CladeSplit& b) {
                return a.left != b.left ? a.left < b.left : a.right < b.right;
            });
            double sum = 0;
            for (const CladeSplit& s : list)
                sum += s.weight;
            for (CladeSplit s : list) {
                s.weight /= sum;
                cs.splits.push_back(s);
            }
            cs.splitOffset[c + 1] = static_cast<int>(cs.splits.size());
        }
        out.geneLine.resize(n);
        out.geneColumn.resize(n);
        for (int g = 0; g < n; ++g) {
            out.geneLine[g] = leafPlace_[geneOrder_[g]].line;
            out.geneColumn[g] = leafPlace_[geneOrder_[g]].column;
        }
        return out;
    }

    const std::string& text_;
    const std::string& source_;
    int section_ = -1;
    int headerLine_[SectionCount] = {};
    std::string constructor_;
    int constructorLine_ = 0;
    bool hasConstructor_ = false;
    int observations_ = 0;
    std::map<int, CountEntry> bip_, bls_;
    std::vector<DipEntry> dips_;
    std::unordered_map<std::uint64_t, int> dipIndex_;
    int lastId_ = 0;
    std::vector<std::string> leafNames_; // in file order
    std::vector<int> leafIds_;
    std::vector<Place> leafPlace_, leafIdPlace_;
    std::unordered_map<std::string, int> leafByName_;
    std::unordered_map<int, int> leafById_;
    std::vector<int> geneOfLeafId_; // leaf id -> gene index (rank of the name)
    std::vector<int> geneOrder_;    // gene index -> position in file order
    int words_ = 0;
    std::map<int, SetEntry> sets_;
    std::map<Bits, int> setByBits_;
};

} // namespace

AleContents parseAle(const std::string& text, const std::string& source) {
    std::string body = text;
    if (body.rfind("\xEF\xBB\xBF", 0) == 0) body.erase(0, 3);
    return AleParser(body, source).run();
}

CladeSet readAleFile(const std::string& path) {
    return parseAle(readTextFile(path), path).clades;
}

} // namespace gpurec
