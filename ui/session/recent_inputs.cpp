#include "session/recent_inputs.hpp"

#include "data/origination.hpp"
#include "input/input_loader.hpp"

#include <QFileInfo>
#include <QSettings>
#include <algorithm>

namespace gpurec::ui {

namespace {
const char* kKey = "recentInputs";

QStringList toStringList(const std::vector<std::string>& items) {
    QStringList out;
    for (const std::string& s : items)
        out << QString::fromStdString(s);
    return out;
}

std::vector<std::string> toStdVector(const QStringList& items) {
    std::vector<std::string> out;
    for (const QString& s : items)
        out.push_back(s.toStdString());
    return out;
}
} // namespace

QVariantMap toVariant(const LoadRequest& r) {
    return {{"speciesTree", QString::fromStdString(r.paths.speciesTree)},
            {"familiesFile", QString::fromStdString(r.paths.familiesFile)},
            {"geneTrees", toStringList(r.paths.geneTrees)},
            {"mappings", toStringList(r.paths.geneTreeMappings)},
            {"fractionMissingFile", QString::fromStdString(r.paths.fractionMissingFile)},
            {"highwaysFile", QString::fromStdString(r.paths.highwaysFile)},
            {"pairwiseTransfers", r.options.events.pairwiseTransfers},
            {"pruneSpeciesTree", r.options.pruneSpeciesTree},
            {"rooted", r.options.rooting == GeneTreeRooting::Rooted},
            {"rooting", QString::fromStdString(toString(r.options.rooting))},
            {"minCoveredSpecies", r.options.minCoveredSpecies},
            {"origination", QString::fromStdString(toString(r.options.origination))},
            {"transferConstraint", QString::fromStdString(toString(r.constraint))},
            {"recModel", QString::fromStdString(toString(r.options.events.recModel))},
            {"noDup", r.options.events.noDup},
            {"noDl", r.options.events.noDl},
            {"noTl", r.options.events.noTl},
            {"speciationCategories", r.options.speciationCategories}};
}

LoadRequest loadRequestFrom(const QVariantMap& map) {
    LoadRequest r;
    r.paths.speciesTree = map.value("speciesTree").toString().toStdString();
    r.paths.familiesFile = map.value("familiesFile").toString().toStdString();
    r.paths.geneTrees = toStdVector(map.value("geneTrees").toStringList());
    r.paths.geneTreeMappings = toStdVector(map.value("mappings").toStringList());
    r.paths.fractionMissingFile = map.value("fractionMissingFile").toString().toStdString();
    r.paths.highwaysFile = map.value("highwaysFile").toString().toStdString();
    r.options.events.pairwiseTransfers = map.value("pairwiseTransfers").toBool();
    r.options.pruneSpeciesTree = map.value("pruneSpeciesTree").toBool();
    r.options.rooting = map.value("rooted").toBool() ? GeneTreeRooting::Rooted : GeneTreeRooting::Unrooted;
    try {
        if (map.contains("rooting"))
            r.options.rooting = parseGeneTreeRooting(map.value("rooting").toString().toStdString());
    } catch (const std::exception&) {
        // an entry written by another version: whether its trees were rooted
    }
    r.options.minCoveredSpecies = map.value("minCoveredSpecies", 4).toInt();
    try {
        r.options.origination =
            parseOrigination(map.value("origination", "UNIFORM").toString().toStdString());
    } catch (const std::exception&) {
        r.options.origination = Origination::Uniform; // an entry written by another version
    }
    try {
        r.constraint =
            parseTransferConstraint(map.value("transferConstraint", "PARENTS").toString().toStdString());
    } catch (const std::exception&) {
        r.constraint = TransferConstraint::Parents; // an entry written by another version
    }
    try {
        r.options.events.recModel =
            parseRecModel(map.value("recModel", "UndatedDTL").toString().toStdString());
    } catch (const std::exception&) {
        r.options.events.recModel = RecModel::UndatedDTL; // an entry written by another version
    }
    r.options.events.noDup = map.value("noDup").toBool();
    r.options.events.noDl = map.value("noDl").toBool();
    r.options.events.noTl = map.value("noTl").toBool();
    // Entries written before the categories reached the workbench had one.
    r.options.speciationCategories = std::max(1, map.value("speciationCategories", 1).toInt());
    return r;
}

QString describe(const LoadRequest& r) {
    QFileInfo species(QString::fromStdString(r.paths.speciesTree));
    QString families = !r.paths.familiesFile.empty()
                           ? QFileInfo(QString::fromStdString(r.paths.familiesFile)).fileName()
                           : QString("%1 gene-tree files").arg(r.paths.geneTrees.size());
    return QString("%1 + %2 (in %3)").arg(species.fileName(), families, species.absolutePath());
}

std::vector<LoadRequest> RecentInputs::entries() const {
    std::vector<LoadRequest> out;
    for (const QVariant& v : QSettings().value(kKey).toList())
        out.push_back(loadRequestFrom(v.toMap()));
    return out;
}

void RecentInputs::add(const LoadRequest& request) {
    QVariantMap entry = toVariant(request);
    QVariantList list{entry};
    for (const QVariant& v : QSettings().value(kKey).toList())
        if (v.toMap() != entry && list.size() < kMaxEntries) list << v;
    QSettings().setValue(kKey, list);
}

void RecentInputs::clear() {
    QSettings().remove(kKey);
}

} // namespace gpurec::ui
