#include "input/input_discovery.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace gpurec::ui {

namespace {
const QStringList kTreeSuffixes = {"nwk", "newick", "tree", "trees", "tre", "nhx", "treefile"};
const QStringList kMappingSuffixes = {"link", "map", "mapping"};
} // namespace

bool isFamiliesFile(const QString& path) {
    QFile file(path);
    if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly)) return false;
    return file.read(64 * 1024).contains("[FAMILIES]");
}

bool isMappingFile(const QString& path) {
    return kMappingSuffixes.contains(QFileInfo(path).suffix().toLower());
}

bool isTreeFile(const QString& path) {
    QFileInfo info(path);
    return info.isFile() && kTreeSuffixes.contains(info.suffix().toLower());
}

QStringList treeFilesIn(const QString& folder) {
    QStringList out;
    for (const QFileInfo& info : QDir(folder).entryInfoList(QDir::Files, QDir::Name))
        if (isTreeFile(info.filePath())) out << info.filePath();
    return out;
}

QString mappingFor(const QString& geneTree) {
    QFileInfo info(geneTree);
    for (const QString& suffix : kMappingSuffixes) {
        QString candidate = info.dir().filePath(info.completeBaseName() + "." + suffix);
        if (QFileInfo(candidate).isFile()) return candidate;
    }
    return {};
}

namespace {
bool looksLikeSpeciesTree(const QString& path) {
    static const QRegularExpression name("^(species|sp)([_.\\-]|tree|$)",
                                         QRegularExpression::CaseInsensitiveOption);
    return name.match(QFileInfo(path).completeBaseName()).hasMatch();
}
} // namespace

DiscoveredInput discoverInput(const QStringList& paths, bool haveSpeciesTree) {
    DiscoveredInput out;
    QStringList trees, folderTrees;
    for (const QString& path : paths) {
        QFileInfo info(path);
        if (info.isDir()) {
            QStringList inFolder = treeFilesIn(path);
            QString families;
            for (const QFileInfo& f : QDir(path).entryInfoList(QDir::Files, QDir::Name))
                if (families.isEmpty() && isFamiliesFile(f.filePath())) families = f.filePath();
            if (families.isEmpty()) {
                folderTrees << inFolder;
                continue;
            }
            // A dataset folder: its families file lists the gene trees; a species-named tree beside it is the
            // species tree.
            out.familiesFile = families;
            for (const QString& t : inFolder)
                if (out.speciesTree.isEmpty() && !haveSpeciesTree && looksLikeSpeciesTree(t))
                    out.speciesTree = t;
        } else if (isFamiliesFile(path)) {
            out.familiesFile = path;
        } else if (isTreeFile(path)) {
            trees << path;
        } else if (!isMappingFile(path)) {
            out.ignored << path;
        }
    }
    if (!haveSpeciesTree && out.speciesTree.isEmpty()) {
        if (trees.size() == 1 && (!folderTrees.isEmpty() || !out.familiesFile.isEmpty())) {
            out.speciesTree = trees.takeFirst();
        } else {
            QStringList all = trees + folderTrees;
            for (const QString& t : all)
                if (looksLikeSpeciesTree(t)) {
                    out.speciesTree = t;
                    break;
                }
        }
    }
    out.geneTrees = folderTrees + trees;
    out.geneTrees.removeAll(out.speciesTree);
    for (const QString& t : out.geneTrees)
        out.mappings << mappingFor(t);
    return out;
}

} // namespace gpurec::ui
