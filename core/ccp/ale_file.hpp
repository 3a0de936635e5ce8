#pragma once
// ALE's .ale files (ALEobserve's output): observed clade and split counts of a gene-tree sample.
// Reading gives the CladeSet that the sample itself gives under UNIFORM rooting; writing gives the
// counts back from a CladeSet's weights and tree count. Layout in docs/formats.md.
#include "ccp/clade_set.hpp"

#include <string>
#include <vector>

namespace gpurec {

// True when the file's first byte (after a UTF-8 byte-order mark) is '#', AleRax's rule for telling
// an .ale file from a Newick list. False for a file that cannot be read (the Newick reader reports it).
bool isAleFile(const std::string& path);

struct AleContents {
    CladeSet clades;
    // Per gene index: the line and column of its name in the #leaf-id section, for errors about a gene.
    std::vector<int> geneLine, geneColumn;
    // The #constructor_string tree: AleRax's MiniNJ and default mapping read only this tree.
    NewickTree constructorTree;
};

// Throws InputError (source:line:column) for every malformed file.
AleContents parseAle(const std::string& text, const std::string& source);
CladeSet readAleFile(const std::string& path);

// The counts of `clades` in .ale layout. Needs a clade set of unrooted samples (every non-root clade
// has its complement and a root split with it) with at least 2 genes, whose names hold no blank and
// do not start with '#'; throws std::invalid_argument otherwise.
std::string aleText(const CladeSet& clades);
void writeAleFile(const std::string& path, const CladeSet& clades);

} // namespace gpurec
