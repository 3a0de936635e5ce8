// A catalogue of bad inputs run through the real gpurec executable: the exact message (file, line,
// reason), the exit status (2 fatal, 3 some families skipped), and the valid families' results
// still written with the log-likelihoods of a run on the valid families alone.
#include "cli_run.hpp"
#include "support.hpp"

#include <QDir>
#include <QtTest>
#include <fstream>
#include <map>
#include <sstream>

using namespace gpurec::test;

namespace {

using Files = std::map<std::string, std::string>; // path in the case folder -> content

const std::string kBom = "\xEF\xBB\xBF";
const std::string kSpecies = "((A,B)AB,(C,D)CD)R;";
const std::string kFamilies = "[FAMILIES]\n- g1\ngene_tree = g1.nwk\n- g2\ngene_tree = g2.nwk\n- g3\n"
                              "gene_tree = g3.nwk\n";
const std::string kWithMapping = "[FAMILIES]\n- g1\ngene_tree = g1.nwk\nmapping = m.link\n- g2\n"
                                 "gene_tree = g2.nwk\n- g3\ngene_tree = g3.nwk\n";
const std::string kRates = "# node D L T\nA 0.1 0.1 0.1\nB 0.1 0.1 0.1\nC 0.1 0.1 0.1\nD 0.1 0.1 0.1\n"
                           "AB 0.1 0.1 0.1\nCD 0.1 0.1 0.1\nR 0.1 0.1 0.1\n";
const char* const kDefaultRule = "(default rule (species = gene label up to the first '_'))";

// The valid dataset every case starts from: three families covering the four species.
Files baseFiles() {
    return {{"s.nwk", kSpecies},
            {"fams.txt", kFamilies},
            {"g1.nwk", "((A_1,B_1),(C_1,D_1));"},
            {"g2.nwk", "(((A_1,A_2),B_1),(C_1,D_1));"},
            {"g3.nwk", "((A_1,C_1),(B_1,D_1));"}};
}

std::string withNul(const std::string& before, const std::string& after) {
    return before + std::string(1, '\0') + after;
}

struct Case {
    const char* name;
    Files files;                           // written over baseFiles()
    std::vector<std::string> extra;        // arguments after the default eval command line
    int exit;                              // expected exit status
    std::vector<std::string> stderrLines;  // exact; "{d}" is the case folder
    std::vector<std::string> computed;     // families in per_fam_likelihoods.txt (empty: none written)
    std::vector<std::string> skipped = {}; // families under "skipped" in result.json
    std::vector<std::string> args = {};    // replaces the whole command line when given
};

std::string skippedLine(const std::string& message, const std::string& family) {
    return message + " (family " + family + " skipped)";
}
std::string summaryLine(int skipped, int listed) {
    return "gpurec: skipped " + std::to_string(skipped) + " of " + std::to_string(listed) +
           " families for bad input (exit status 3; --strict stops instead)";
}
std::string fatal(const std::string& message) {
    return "gpurec: error: " + message;
}
// A family skipped among the three of the base dataset.
std::vector<std::string> oneSkipped(const std::string& message, const std::string& family = "g1") {
    return {skippedLine(message, family), summaryLine(1, 3)};
}

const std::vector<std::string> kAll = {"g1", "g2", "g3"};
const std::vector<std::string> kNotG1 = {"g2", "g3"};

std::vector<Case> badInputCatalogue() {
    const std::string rule = kDefaultRule;
    return {
        // Species tree: every problem is fatal.
        {"species: missing ';'",
         {{"s.nwk", "((A,B)AB,(C,D)CD)R"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:19: missing ';' at end of tree")},
         {}},
        {"species: unmatched ')'",
         {{"s.nwk", "((A,B)AB,(C,D)CD)R);"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:19: unbalanced parentheses: ')' without matching '('")},
         {}},
        {"species: garbage after ';'",
         {{"s.nwk", "((A,B)AB,(C,D)CD)R;x"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:20: unexpected text after ';': 'x' (a further tree must end with ';')")},
         {}},
        {"species: long garbage after ';'",
         {{"s.nwk", "((A,B)AB,(C,D)CD)R;\n  this is not a tree at all\n"}},
         {},
         2,
         {fatal("{d}/s.nwk:2:3: unexpected text after ';': 'this is not a tree a...' (a further tree must "
                "end with ';')")},
         {}},
        {"species: two trees",
         {{"s.nwk", kSpecies + "\n((A,B),(C,D));"}},
         {},
         2,
         {fatal("{d}/s.nwk:2: species tree file holds 2 trees, expected one")},
         {}},
        {"species: polytomy",
         {{"s.nwk", "(A,B,C,D);"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:9: species tree must be rooted and binary, but a node has 4 children")},
         {}},
        {"species: duplicate leaf",
         {{"s.nwk", "((A,B)AB,(C,A)CD)R;"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:13: duplicate leaf name 'A' (first at line 1, column 3)")},
         {}},
        {"species: unterminated comment",
         {{"s.nwk", "((A,B)AB,(C,D)CD)R[x;"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:19: unterminated comment: '[' without matching ']'")},
         {}},
        {"species: empty file",
         {{"s.nwk", ""}},
         {},
         2,
         {fatal("{d}/s.nwk: no tree found (empty input)")},
         {}},
        {"species: bad branch length",
         {{"s.nwk", "((A:x,B)AB,(C,D)CD)R;"}},
         {},
         2,
         {fatal("{d}/s.nwk:1:5: invalid branch length 'x'")},
         {}},
        {"species: NUL byte",
         {{"s.nwk", withNul("((A", ",B)AB,(C,D)CD)R;")}},
         {},
         2,
         {fatal("{d}/s.nwk:1:4: NUL byte (\\0) in a text file: the file is binary or corrupted")},
         {}},
        {"species: UTF-16",
         {{"s.nwk", "\xFF\xFE("}},
         {},
         2,
         {fatal("{d}/s.nwk:1:1: file is UTF-16 encoded (byte-order mark); save it as UTF-8 or ASCII text")},
         {}},
        {"species: missing file",
         {},
         {},
         2,
         {fatal("{d}/none.nwk: cannot open file: No such file or directory")},
         {},
         {},
         {"eval", "-s", "{d}/none.nwk", "-f", "{d}/fams.txt", "-p", "{d}/out"}},
        {"species: negative lengths warn",
         {{"s.nwk", "((A:-1,B:-0.5)AB,(C,D)CD)R;"}},
         {},
         0,
         {"gpurec: warning: {d}/s.nwk:1:3: negative branch length -1 of 'A' (and 1 more); branch lengths are "
          "not used by the undated model (--transfer-constraint RELDATED dates the tree with 1 in their "
          "place)"},
         kAll},
        {"species: BOM accepted", {{"s.nwk", kBom + kSpecies}}, {}, 0, {}, kAll},

        // Gene trees: the family is skipped, the others computed.
        {"gene tree: missing ';'",
         {{"g1.nwk", "((A_1,B_1),(C_1,D_1))"}},
         {},
         3,
         oneSkipped("{d}/g1.nwk:1:22: missing ';' at end of tree"),
         kNotG1,
         {"g1"}},
        {"gene tree: garbage after ';'",
         {{"g1.nwk", "((A_1,B_1),(C_1,D_1));junk\n"}},
         {},
         3,
         oneSkipped("{d}/g1.nwk:1:23: unexpected text after ';': 'junk' (a further tree must end with ';')"),
         kNotG1,
         {"g1"}},
        {"gene tree: missing ')'",
         {{"g1.nwk", "((A_1,B_1),(C_1,D_1);"}},
         {},
         3,
         oneSkipped("{d}/g1.nwk:1:21: unbalanced parentheses: missing ')' before ';'"),
         kNotG1,
         {"g1"}},
        {"gene tree: unknown species",
         {{"g1.nwk", "((A_1,B_1),(C_1,X_1));"}},
         {},
         3,
         oneSkipped(
             "{d}/g1.nwk:1:17: gene 'X_1' of family 'g1' maps to species 'X', which is not in the species "
             "tree " +
             rule),
         kNotG1,
         {"g1"}},
        {"gene tree: internal species",
         {{"g1.nwk", "((A_1,AB_1),(C_1,D_1));"}},
         {},
         3,
         oneSkipped(
             "{d}/g1.nwk:1:7: gene 'AB_1' of family 'g1' maps to 'AB', an internal node of the species "
             "tree " +
             rule),
         kNotG1,
         {"g1"}},
        {"gene tree: polytomy",
         {{"g1.nwk", "((A_1,B_1,C_1),D_1);"}},
         {},
         3,
         oneSkipped("{d}/g1.nwk:1:14: gene tree must be binary, found a polytomy (3 children)"),
         kNotG1,
         {"g1"}},
        {"gene tree: duplicate leaf",
         {{"g1.nwk", "((A_1,B_1),(C_1,A_1));"}},
         {},
         3,
         oneSkipped("{d}/g1.nwk:1:17: duplicate leaf name 'A_1' (first at line 1, column 3)"),
         kNotG1,
         {"g1"}},
        {"gene tree: samples differ",
         {{"g1.nwk", "((A_1,B_1),(C_1,D_1));\n((A_1,B_1),(C_1,E_1));\n"}},
         {},
         3,
         oneSkipped(
             "{d}/g1.nwk:2:17: leaf 'E_1' of tree 2 is not in the first tree (all samples must share one "
             "leaf set)"),
         kNotG1,
         {"g1"}},
        {"gene tree: empty file",
         {{"g1.nwk", "  \n"}},
         {},
         3,
         oneSkipped("{d}/g1.nwk: no tree found (empty input)"),
         kNotG1,
         {"g1"}},
        {"gene tree: NUL byte",
         {{"g1.nwk", withNul("((A_1,B", "_1),(C_1,D_1));")}},
         {},
         3,
         oneSkipped("{d}/g1.nwk:1:8: NUL byte (\\0) in a text file: the file is binary or corrupted"),
         kNotG1,
         {"g1"}},
        {"gene tree: a bare word",
         {{"g2.nwk", "x"}},
         {},
         3,
         oneSkipped("{d}/g2.nwk:1:2: missing ';' at end of tree", "g2"),
         {"g1", "g3"},
         {"g2"}},
        {"gene tree: a folder",
         {{"fams.txt", "[FAMILIES]\n- g1\ngene_tree = sub\n- g2\ngene_tree = g2.nwk\n- g3\n"
                       "gene_tree = g3.nwk\n"},
          {"sub/x", ""}},
         {},
         3,
         oneSkipped("{d}/sub: is a directory, not a file"),
         kNotG1,
         {"g1"}},
        {"gene tree: BOM accepted", {{"g1.nwk", kBom + "((A_1,B_1),(C_1,D_1));"}}, {}, 0, {}, kAll},

        // Families file: a bad family block skips that family; a bad file is fatal.
        {"families: unknown key",
         {{"fams.txt", "[FAMILIES]\n- g1\ngene_tree = g1.nwk\ncolour = red\n- g2\n"
                       "gene_tree = g2.nwk\n- g3\ngene_tree = g3.nwk\n"}},
         {},
         3,
         oneSkipped(
             "{d}/fams.txt:4:1: unknown key 'colour' (expected gene_tree, mapping, alignment, subst_model)"),
         kNotG1,
         {"g1"}},
        {"families: no gene_tree",
         {{"fams.txt", "[FAMILIES]\n- g1\nalignment = a.fasta\n- g2\n"
                       "gene_tree = g2.nwk\n- g3\ngene_tree = g3.nwk\n"}},
         {},
         3,
         oneSkipped("{d}/fams.txt:2:1: family 'g1' has no gene_tree"),
         kNotG1,
         {"g1"}},
        {"families: empty value",
         {{"fams.txt", "[FAMILIES]\n- g1\ngene_tree =\n- g2\ngene_tree = g2.nwk\n- g3\n"
                       "gene_tree = g3.nwk\n"}},
         {},
         3,
         oneSkipped("{d}/fams.txt:3:11: empty value for 'gene_tree'"),
         kNotG1,
         {"g1"}},
        {"families: garbage line",
         {{"fams.txt", "[FAMILIES]\n- g1\ngene_tree = g1.nwk\nhello\n- g2\n"
                       "gene_tree = g2.nwk\n- g3\ngene_tree = g3.nwk\n"}},
         {},
         3,
         oneSkipped("{d}/fams.txt:4:1: expected '- family_name' or 'key = value', found 'hello'"),
         kNotG1,
         {"g1"}},
        {"families: duplicate name",
         {{"fams.txt", "[FAMILIES]\n- g1\ngene_tree = g1.nwk\n- g2\n"
                       "gene_tree = g2.nwk\n- g1\ngene_tree = g3.nwk\n"}},
         {},
         3,
         oneSkipped("{d}/fams.txt:6:1: duplicate family name 'g1' (first at line 2)"),
         {"g1", "g2"},
         {"g1"}},
        {"families: gene tree not found",
         {{"fams.txt", "[FAMILIES]\n- g1\ngene_tree = nothere.nwk\n- g2\n"
                       "gene_tree = g2.nwk\n- g3\ngene_tree = g3.nwk\n"}},
         {},
         3,
         oneSkipped("{d}/nothere.nwk: cannot open file: No such file or directory"),
         kNotG1,
         {"g1"}},
        // g1.nwk is in the working directory (the case folder) but not beside the families file.
        {"families: no fallback to the working directory",
         {{"f/fams.txt", "[FAMILIES]\n- g1\ngene_tree = g1.nwk\n- g2\ngene_tree = ../g2.nwk\n- g3\n"
                         "gene_tree = ../g3.nwk\n"}},
         {},
         3,
         oneSkipped("{d}/f/g1.nwk: cannot open file: No such file or directory"),
         kNotG1,
         {"g1"},
         {"eval", "-s", "{d}/s.nwk", "-f", "{d}/f/fams.txt", "-p", "{d}/out"}},
        {"families: no section",
         {{"fams.txt", "- g1\ngene_tree = g1.nwk\n"}},
         {},
         2,
         {fatal("{d}/fams.txt: no [FAMILIES] section")},
         {}},
        {"families: none listed",
         {{"fams.txt", "[FAMILIES]\n# nothing\n"}},
         {},
         2,
         {fatal("{d}/fams.txt: no family listed after [FAMILIES]")},
         {}},
        {"families: key before a family",
         {{"fams.txt", "[FAMILIES]\ngene_tree = g1.nwk\n- g1\n"}},
         {},
         2,
         {fatal("{d}/fams.txt:2:1: 'gene_tree' before the first '- family_name'")},
         {}},
        {"families: NUL byte",
         {{"fams.txt", withNul("[FAMILIES]\n- g", "1\ngene_tree = g1.nwk\n")}},
         {},
         2,
         {fatal("{d}/fams.txt:2:4: NUL byte (\\0) in a text file: the file is binary or corrupted")},
         {}},
        {"families: missing file",
         {},
         {},
         2,
         {fatal("{d}/none.txt: cannot open file: No such file or directory")},
         {},
         {},
         {"eval", "-s", "{d}/s.nwk", "-f", "{d}/none.txt", "-p", "{d}/out"}},
        {"families: BOM accepted", {{"fams.txt", kBom + kFamilies}}, {}, 0, {}, kAll},
        {"families: CRLF and BOM accepted",
         {{"fams.txt", kBom + "[FAMILIES]\r\n- g1\r\ngene_tree = g1.nwk\r\n- g2\r\n"
                              "gene_tree = g2.nwk\r\n- g3\r\ngene_tree = g3.nwk\r\n"}},
         {},
         0,
         {},
         kAll},

        // Mapping files: the family using it is skipped.
        {"mapping: not found",
         {{"fams.txt", kWithMapping}},
         {},
         3,
         oneSkipped("{d}/m.link: cannot open file: No such file or directory"),
         kNotG1,
         {"g1"}},
        {"mapping: extra field",
         {{"fams.txt", kWithMapping}, {"m.link", "A_1 A x\n"}},
         {},
         3,
         oneSkipped("{d}/m.link:1: expected 'gene species' (Treerecs format), found extra field 'x'"),
         kNotG1,
         {"g1"}},
        {"mapping: gene mapped twice",
         {{"fams.txt", kWithMapping}, {"m.link", "A_1 A\nA_1 B\n"}},
         {},
         3,
         oneSkipped("{d}/m.link:2: gene 'A_1' mapped to both 'A' and 'B'"),
         kNotG1,
         {"g1"}},
        {"mapping: gene not mapped",
         {{"fams.txt", kWithMapping}, {"m.link", "A_1 A\nB_1 B\nC_1 C\n"}},
         {},
         3,
         oneSkipped(
             "{d}/g1.nwk:1:17: gene 'D_1' of family 'g1' is not in the mapping file {d}/m.link (Treerecs "
             "format)"),
         kNotG1,
         {"g1"}},
        {"mapping: empty",
         {{"fams.txt", kWithMapping}, {"m.link", "\n"}},
         {},
         3,
         oneSkipped("{d}/m.link: mapping file is empty"),
         kNotG1,
         {"g1"}},
        {"mapping: BOM accepted",
         {{"fams.txt", kWithMapping}, {"m.link", kBom + "A:A_1\nB:B_1\nC:C_1\nD:D_1\n"}},
         {},
         0,
         {},
         kAll},

        // Rate files: fatal, naming file and line.
        {"rates: duplicate node",
         {{"r.txt", kRates + "A 0.2 0.1 0.1\n"}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:9:1: species node 'A' listed twice (first at line 2)")},
         {}},
        {"rates: extra column",
         {{"r.txt", "A 0.1 0.1 0.1 0.5\n" + kRates.substr(27)}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:1:15: expected 'node D L T', found extra field '0.5'")},
         {}},
        {"rates: missing column",
         {{"r.txt", "# node D L T\nA 0.1 0.1\n"}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:2:1: expected 'node D L T', found 3 fields")},
         {}},
        {"rates: missing node",
         {{"r.txt", kRates.substr(0, kRates.size() - 14)}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt: no rates for species node 'R'")},
         {}},
        {"rates: unknown node",
         {{"r.txt", kRates + "X 0.1 0.1 0.1\n"}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:9:1: species node 'X' is not in the species tree")},
         {}},
        {"rates: origination column",
         {{"r.txt",
           "node D L T O\nA 0.1 0.1 0.1 0.2\nB 0.1 0.1 0.1 0.2\nC 0.1 0.1 0.1 0.2\nD 0.1 0.1 0.1 0.2\n"
           "AB 0.1 0.1 0.1 0.1\nCD 0.1 0.1 0.1 0.1\nR 0.1 0.1 0.1 0.1\n"}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:1:12: origination weights (the O column) go with --origination OPTIMIZE")},
         {}},
        {"rates: origination column without weights",
         {{"r.txt", "node D L T O\n" + kRates.substr(13)}},
         {"--rates-file", "{d}/r.txt", "--origination", "OPTIMIZE"},
         2,
         {fatal("{d}/r.txt:2:1: expected 'node D L T O', found 4 fields")},
         {}},
        {"rates: not a number",
         {{"r.txt", "node D L T\nA 0.1 abc 0.1\n" + kRates.substr(27)}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:2:7: expected 'node D L T', found 'abc'")},
         {}},
        {"rates: negative rate",
         {{"r.txt", "B -0.1 0.1 0.1\n" + kRates}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:1:3: rates must be positive, found '-0.1'")},
         {}},
        {"rates: not finite",
         {{"r.txt", "B 0.1 inf 0.1\n" + kRates}},
         {"--rates-file", "{d}/r.txt"},
         2,
         {fatal("{d}/r.txt:1:7: rate 'inf' is not a finite number")},
         {}},
        {"rates: BOM accepted", {{"r.txt", kBom + kRates}}, {"--rates-file", "{d}/r.txt"}, 0, {}, kAll},

        // Mixtures and --strict.
        {"five families, three bad",
         {{"fams.txt",
           "[FAMILIES]\n- g1\ngene_tree = g1.nwk\n- b1\ngene_tree = b1.nwk\n- g2\ngene_tree = g2.nwk\n"
           "- b2\ngene_tree = b2.nwk\n- b3\ngene_tree = b3.nwk\n"},
          {"b2.nwk", "((A_1,B_1),(C_1,D_1));\n#comment"},
          {"b3.nwk", "((A_1,B_1),(Z_1,D_1));"}},
         {},
         3,
         {skippedLine("{d}/b1.nwk: cannot open file: No such file or directory", "b1"),
          skippedLine(
              "{d}/b2.nwk:2:1: unexpected text after ';': '#comment' (a further tree must end with ';')",
              "b2"),
          skippedLine(
              "{d}/b3.nwk:1:13: gene 'Z_1' of family 'b3' maps to species 'Z', which is not in the species "
              "tree " +
                  rule,
              "b3"),
          summaryLine(3, 5)},
         {"g1", "g2"},
         {"b1", "b2", "b3"}},
        {"gene-tree list with a bad file",
         {{"bad.nwk", "((A_1,B_1),(C_1,D_1)"}},
         {},
         3,
         oneSkipped("{d}/bad.nwk:1:21: unbalanced parentheses: missing ')'", "bad"),
         {"g1", "g2"},
         {"bad"},
         {"eval", "-s", "{d}/s.nwk", "{d}/g1.nwk", "{d}/bad.nwk", "{d}/g2.nwk", "-p", "{d}/out"}},
        {"--strict makes a bad family fatal",
         {{"g1.nwk", "((A_1,B_1),(C_1,D_1))"}},
         {"--strict"},
         2,
         {fatal("1 family could not be read (--strict):"),
          "  family g1: {d}/g1.nwk:1:22: missing ';' at end of tree"},
         {}},
        {"--strict with valid input", {}, {"--strict"}, 0, {}, kAll},
        {"every family bad",
         {{"g1.nwk", "(A_1"}, {"g2.nwk", "(A_1,"}, {"g3.nwk", ");"}},
         {},
         2,
         {skippedLine("{d}/g1.nwk:1:5: unbalanced parentheses: missing ')'", "g1"),
          skippedLine("{d}/g2.nwk:1:6: unbalanced parentheses: missing ')'", "g2"),
          skippedLine("{d}/g3.nwk:1:1: unbalanced parentheses: ')' without matching '('", "g3"),
          fatal("no family left to reconcile (3 families skipped for bad input, 0 excluded)")},
         {}},
    };
}

std::string fill(std::string text, const std::string& dir) {
    for (std::size_t at; (at = text.find("{d}")) != std::string::npos;)
        text.replace(at, 3, dir);
    return text;
}

std::vector<std::string> lines(const QString& text) {
    std::vector<std::string> out;
    std::istringstream in(text.toStdString());
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

std::map<std::string, double> readLikelihoods(const std::string& path) {
    std::map<std::string, double> out;
    std::ifstream in(path);
    std::string name;
    double ll = 0;
    while (in >> name >> ll)
        out[name] = ll;
    return out;
}

// "file:line:column: reason" rebuilt from a "skipped" entry of result.json.
std::string located(const nlohmann::json& skipped) {
    std::string out = skipped["file"];
    if (int(skipped["line"]) > 0) out += ":" + std::to_string(int(skipped["line"]));
    if (int(skipped["column"]) > 0) out += ":" + std::to_string(int(skipped["column"]));
    return out + ": " + std::string(skipped["reason"]);
}

// A case folder with the base dataset overwritten by `files`; the working directory is set to it.
std::string prepareCase(const Files& files, const std::string& tag) {
    const std::string dir = QDir(QString::fromStdString(temporaryFolder(tag))).canonicalPath().toStdString();
    for (const Files& set : {baseFiles(), files})
        for (const auto& [path, text] : set)
            writeFile(dir + "/" + path, text);
    QDir::setCurrent(QString::fromStdString(dir));
    return dir;
}

QStringList arguments(const std::vector<std::string>& args, const std::string& dir) {
    QStringList out;
    for (const std::string& a : args)
        out << q(fill(a, dir));
    return out;
}

} // namespace

class BadInputs : public QObject {
    Q_OBJECT

    std::map<std::string, double> reference_; // LL of g1..g3 from a run on valid input only

    // Runs `command` on the base dataset with g1 unreadable and on the valid families only; the
    // per-family LLs of the first must be those of the second.
    void compareWithValidOnly(const std::vector<std::string>& command) {
        const std::string dir = prepareCase({{"g1.nwk", "((A_1,B_1),(C_1,D_1);"},
                                             {"good.txt", "[FAMILIES]\n- g2\ngene_tree = g2.nwk\n- g3\n"
                                                          "gene_tree = g3.nwk\n"}},
                                            "bad_inputs_cmd");
        std::vector<std::string> withBad = command, validOnly = command;
        for (const char* a : {"-s", "{d}/s.nwk", "-f", "{d}/fams.txt", "-p", "{d}/out"})
            withBad.push_back(a);
        for (const char* a : {"-s", "{d}/s.nwk", "-f", "{d}/good.txt", "-p", "{d}/ref"})
            validOnly.push_back(a);
        CliRun bad = runGpurec(arguments(withBad, dir));
        QCOMPARE(bad.exitCode, 3);
        QCOMPARE(lines(bad.err),
                 oneSkipped(dir + "/g1.nwk:1:21: unbalanced parentheses: missing ')' before ';'"));
        CliRun good = runGpurec(arguments(validOnly, dir));
        QCOMPARE(good.exitCode, 0);
        nlohmann::json j = readJson(dir + "/out/result.json");
        QCOMPARE(j["skipped"].size(), std::size_t(1));
        QCOMPARE(std::string(j["skipped"][0]["name"]), std::string("g1"));
        QCOMPARE(located(j["skipped"][0]),
                 dir + "/g1.nwk:1:21: unbalanced parentheses: missing ')' before ';'");
        QCOMPARE(j["families"].size(), std::size_t(2));
        nlohmann::json ref = readJson(dir + "/ref/result.json");
        for (std::size_t f = 0; f < 2; ++f) {
            QCOMPARE(j["families"][f]["name"], ref["families"][f]["name"]);
            // optimize's gradient sums are not yet in a fixed order, hence not bit for bit
            QVERIFY(relativeError(double(j["families"][f]["ll_nats"]),
                                  double(ref["families"][f]["ll_nats"])) < 1e-9);
        }
    }

  private slots:
    void initTestCase() {
        const std::string dir = prepareCase({}, "bad_inputs_ref");
        CliRun r =
            runGpurec(arguments({"eval", "-s", "{d}/s.nwk", "-f", "{d}/fams.txt", "-p", "{d}/out"}, dir));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.err, QString());
        reference_ = readLikelihoods(dir + "/out/per_fam_likelihoods.txt");
        QCOMPARE(reference_.size(), std::size_t(3));
        for (const auto& [name, ll] : reference_)
            QVERIFY2(ll < 0 && ll > -100, name.c_str());
    }

    void catalogue_data() {
        QTest::addColumn<int>("index");
        const std::vector<Case> cases = badInputCatalogue();
        QVERIFY(cases.size() >= 40);
        for (std::size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(cases[i].name) << int(i);
    }
    void catalogue() {
        QFETCH(int, index);
        const Case c = badInputCatalogue()[std::size_t(index)];
        const std::string dir = prepareCase(c.files, "bad_inputs");
        std::vector<std::string> args = c.args;
        if (args.empty()) {
            args = {"eval", "-s", "{d}/s.nwk", "-f", "{d}/fams.txt", "-p", "{d}/out"};
            args.insert(args.end(), c.extra.begin(), c.extra.end());
        }
        CliRun r = runGpurec(arguments(args, dir));
        std::vector<std::string> expected;
        for (const std::string& line : c.stderrLines)
            expected.push_back(fill(line, dir));
        QCOMPARE(lines(r.err), expected);
        QCOMPARE(r.exitCode, c.exit);
        const std::string out = dir + "/out";
        if (c.computed.empty()) {
            QVERIFY(!QFile::exists(q(out + "/per_fam_likelihoods.txt")));
            QVERIFY(!QFile::exists(q(out + "/result.json")));
            return;
        }
        const std::map<std::string, double> written = readLikelihoods(out + "/per_fam_likelihoods.txt");
        QCOMPARE(written.size(), c.computed.size());
        for (const std::string& name : c.computed) {
            QVERIFY2(written.count(name), name.c_str());
            QVERIFY2(relativeError(written.at(name), reference_.at(name)) < 1e-13, name.c_str());
        }
        nlohmann::json j = readJson(out + "/result.json");
        QCOMPARE(j["skipped"].size(), c.skipped.size());
        for (std::size_t k = 0; k < c.skipped.size(); ++k) {
            QCOMPARE(std::string(j["skipped"][k]["name"]), c.skipped[k]);
            // The same file, line, column and reason as on stderr.
            QCOMPARE(skippedLine(located(j["skipped"][k]), c.skipped[k]), expected[k]);
        }
    }

    // result.json names the files read, resolved against the families file's folder.
    void resultJsonRecordsResolvedPaths() {
        const std::string dir = prepareCase(
            {{"f/fams.txt",
              "[FAMILIES]\n- g1\ngene_tree = ../g1.nwk\nmapping = m.link\n- g2\ngene_tree = ../g2.nwk\n"
              "- g3\ngene_tree = ../g3.nwk\n"},
             {"f/m.link", "A_1 A\nB_1 B\nC_1 C\nD_1 D\n"}},
            "bad_inputs_paths");
        QDir::setCurrent(q(dir + "/f"));
        CliRun r = runGpurec({"eval", "-s", "../s.nwk", "-f", "fams.txt", "-p", "out"});
        QCOMPARE(r.exitCode, 0);
        nlohmann::json files = readJson(dir + "/f/out/result.json")["input_files"];
        QCOMPARE(std::string(files["species_tree"]), dir + "/s.nwk");
        QCOMPARE(std::string(files["families_file"]), dir + "/f/fams.txt");
        QCOMPARE(files["families"].size(), std::size_t(3));
        QCOMPARE(std::string(files["families"][0]["name"]), std::string("g1"));
        QCOMPARE(std::string(files["families"][0]["gene_tree"]), dir + "/g1.nwk");
        QCOMPARE(std::string(files["families"][0]["mapping"]), dir + "/f/m.link");
        QCOMPARE(std::string(files["families"][2]["gene_tree"]), dir + "/g3.nwk");
        QVERIFY(!files["families"][2].contains("mapping"));
    }

    void optimizeSkipsBadFamilies() { compareWithValidOnly({"optimize", "--max-iter", "5"}); }

    void sampleSkipsBadFamilies() { compareWithValidOnly({"sample", "--samples", "3"}); }

    void evalSkipsBadFamilies() { compareWithValidOnly({"eval"}); }
};

QTEST_GUILESS_MAIN(BadInputs)
#include "test_bad_inputs.moc"
