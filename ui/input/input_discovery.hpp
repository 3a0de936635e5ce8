#pragma once
// Turns what the user opened or dropped (files, folders) into load paths: recognises AleRax
// families files by content, gene-tree files by extension, and pairs each gene-tree file with a
// mapping file of the same name (fam1.nwk + fam1.link).
#include <QString>
#include <QStringList>

namespace gpurec::ui {

struct DiscoveredInput {
    QString speciesTree;
    QString familiesFile;
    QStringList geneTrees;
    QStringList mappings; // one per gene tree, "" where none was found
    QStringList ignored;  // dropped paths that are neither trees nor families files

    // True when a species tree and at least one source of families are known.
    bool complete() const {
        return !speciesTree.isEmpty() && (!familiesFile.isEmpty() || !geneTrees.isEmpty());
    }
};

bool isFamiliesFile(const QString& path);
bool isMappingFile(const QString& path);
bool isTreeFile(const QString& path);
// Gene-tree files directly inside `folder`, sorted by name.
QStringList treeFilesIn(const QString& folder);
// The mapping file beside `geneTree` with the same base name, or "".
QString mappingFor(const QString& geneTree);
// Classifies dropped paths. `haveSpeciesTree`: a species tree is already loaded, so lone tree
// files are gene trees. Otherwise a single tree file among families files/folders, or the one
// named like "species*", is the species tree.
DiscoveredInput discoverInput(const QStringList& paths, bool haveSpeciesTree);

} // namespace gpurec::ui
