#include "io/gene_mapping.hpp"

#include "io/input_error.hpp"
#include "io/text_file.hpp"

#include <sstream>

namespace gpurec {

namespace {
std::string trim(const std::string& s) {
    const char* ws = " \t\r\n";
    auto b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}
} // namespace

GeneMapping GeneMapping::readFile(const std::string& path) {
    return parse(readTextFile(path), path);
}

GeneMapping GeneMapping::parse(const std::string& text, const std::string& source) {
    GeneMapping m;
    m.source_ = source;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    bool phyldog = false;
    bool formatKnown = false;
    auto add = [&](const std::string& gene, const std::string& species, int ln) {
        auto [it, inserted] = m.map_.emplace(gene, species);
        if (!inserted && it->second != species)
            throw InputError(source, ln, 0,
                             "gene '" + gene + "' mapped to both '" + it->second + "' and '" + species + "'");
    };
    while (std::getline(in, line)) {
        ++lineNo;
        std::string t = trim(line);
        if (t.empty()) continue;
        if (!formatKnown) {
            phyldog = t.find(':') != std::string::npos;
            formatKnown = true;
            m.format_ = phyldog ? "Phyldog" : "Treerecs";
        }
        if (phyldog) {
            auto colon = t.find(':');
            if (colon == std::string::npos)
                throw InputError(source, lineNo, 0, "expected 'species:gene1;gene2;...' (Phyldog format)");
            std::string species = trim(t.substr(0, colon));
            if (species.empty()) throw InputError(source, lineNo, 1, "empty species name");
            std::istringstream genes(t.substr(colon + 1));
            std::string gene;
            while (std::getline(genes, gene, ';')) {
                gene = trim(gene);
                if (!gene.empty()) add(gene, species, lineNo);
            }
        } else {
            std::istringstream fields(t);
            std::string gene, species, extra;
            fields >> gene >> species;
            if (species.empty())
                throw InputError(source, lineNo, 0,
                                 "expected 'gene species' (Treerecs format), found one field");
            if (fields >> extra)
                throw InputError(source, lineNo, 0,
                                 "expected 'gene species' (Treerecs format), found extra field '" + extra +
                                     "'");
            add(gene, species, lineNo);
        }
    }
    if (m.map_.empty()) throw InputError(source, 0, 0, "mapping file is empty");
    return m;
}

std::string GeneMapping::speciesOf(const std::string& gene) const {
    if (source_.empty()) return gene.substr(0, gene.find('_'));
    auto it = map_.find(gene);
    return it == map_.end() ? std::string() : it->second;
}

std::string GeneMapping::describe() const {
    if (source_.empty()) return "default rule (species = gene label up to the first '_')";
    return "mapping file " + source_ + " (" + format_ + " format)";
}

} // namespace gpurec
