#include "input/open_input_dialog.hpp"

#include "data/origination.hpp"
#include "data/pruning_options.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <stdexcept>
#include <tuple>

namespace gpurec::ui {

namespace {
constexpr int kMappingRole = Qt::UserRole + 1;
const char* const kHighwaysTip =
    "--highways-file: extra transfers from src to dest, each with its own rate, starting at proba and "
    "fitted with the others by Optimise; with pairwise transfers, the starting rates of the pairs it "
    "lists";
const char* const kPairwiseTip =
    "--pairwise-transfers: every allowed donor → recipient pair gets its own transfer rate, fitted by "
    "Optimise, in place of T spread evenly over the recipients (T leaves the model). About N² rates, "
    "shown in the Transfer rates tab";
const char* const kPruneTip =
    "--prune-species-tree: each family is reconciled with the species tree pruned to the species it "
    "covers and the nodes where two covered subtrees meet (AleRax's option); no species-tree search";
const char* kTreeFilter = "Trees (*.nwk *.newick *.tree *.trees *.tre *.nhx *.treefile);;All files (*)";

QWidget* withBrowse(QLineEdit* edit, QPushButton* browse) {
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    return row;
}
} // namespace

OpenInputDialog::OpenInputDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Open data"));
    species_ = new QLineEdit;
    species_->setObjectName("speciesTreePath");
    species_->setAccessibleName(tr("Species tree"));
    families_ = new QLineEdit;
    families_->setObjectName("familiesFilePath");
    families_->setAccessibleName(tr("Families file"));
    families_->setPlaceholderText(
        tr("AleRax families file (optional when gene-tree files are listed below)"));
    fractionMissing_ = new QLineEdit;
    fractionMissing_->setObjectName("fractionMissingPath");
    fractionMissing_->setAccessibleName(tr("Fraction-missing file"));
    fractionMissing_->setPlaceholderText(tr("optional: per species leaf, the fraction of its genes missing"));
    fractionMissing_->setToolTip(
        tr("AleRax's --fraction-missing-file: one 'species fraction' line per leaf, for genomes sequenced in "
           "part. The fraction enters the leaf's extinction probability."));
    highways_ = new QLineEdit;
    highways_->setObjectName("highwaysPath");
    highways_->setAccessibleName(tr("Transfer highways file"));
    highways_->setPlaceholderText(
        tr("optional: 'src, dest, proba' per line (AleRax's accepted_highways.txt)"));
    pairwise_ = new QCheckBox(tr("one rate per donor → recipient pair (--pairwise-transfers)"));
    pairwise_->setObjectName("pairwiseTransfers");
    pairwise_->setAccessibleName(tr("Pairwise transfers"));
    prune_ = new QCheckBox(tr("prune the species tree to each family's species (--prune-species-tree)"));
    prune_->setObjectName("pruneSpeciesTree");
    prune_->setAccessibleName(tr("Prune the species tree"));
    auto* browseSpecies = new QPushButton(tr("Browse…"));
    auto* browseFamilies = new QPushButton(tr("Browse…"));
    auto* browseFractionMissing = new QPushButton(tr("Browse…"));
    auto* browseHighways = new QPushButton(tr("Browse…"));
    browseHighways->setObjectName("browseHighways");
    browseSpecies->setAccessibleName(tr("Browse for the species tree"));
    browseFamilies->setAccessibleName(tr("Browse for the families file"));
    browseFractionMissing->setAccessibleName(tr("Browse for the fraction-missing file"));
    browseHighways->setAccessibleName(tr("Browse for the transfer highways file"));
    geneTrees_ = new QListWidget;
    geneTrees_->setObjectName("geneTreeList");
    geneTrees_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    auto* addFiles = new QPushButton(tr("Add files…"));
    auto* addFolder = new QPushButton(tr("Add folder…"));
    auto* removeSelected = new QPushButton(tr("Remove"));
    rooting_ = new QComboBox;
    rooting_->addItem(tr("all rootings, weighted equally (AleRax default)"), "UNIFORM");
    rooting_->addItem(tr("as rooted in the files"), "ROOTED");
    rooting_->addItem(tr("all rootings, weighted by their MAD deviation (MAD)"), "MAD");
    constraint_ = new QComboBox;
    constraint_->addItem(tr("not to an ancestor (PARENTS, AleRax default)"), "PARENTS");
    constraint_->addItem(tr("to any other branch (NONE)"), "NONE");
    constraint_->addItem(tr("not into the past, by the branch lengths (RELDATED)"), "RELDATED");
    constraint_->setToolTip(tr("RELDATED orders the species tree's internal nodes by their distance from "
                               "the top, read from its branch lengths as AleRax reads them, and allows no "
                               "transfer to a branch that ended before the donor's began."));
    origination_ = new QComboBox;
    origination_->addItem(tr("at any species node (UNIFORM, AleRax default)"), "UNIFORM");
    origination_->addItem(tr("at the root (ROOT)"), "ROOT");
    origination_->addItem(tr("at the last common ancestor of their species (LCA)"), "LCA");
    origination_->addItem(tr("anywhere, with fitted weights (OPTIMIZE)"), "OPTIMIZE");
    origination_->setToolTip(
        tr("Where a family's first gene may be: the likelihood and the sampled reconciliations start "
           "there. OPTIMIZE weights every species node by a weight fitted with the rates (the Run panel's "
           "modes per species and global, origination weights per species)"));
    categories_ = new QSpinBox;
    categories_->setObjectName("speciationCategories");
    categories_->setRange(1, 1000);
    categories_->setSpecialValueText(tr("1 (off)"));
    categories_->setToolTip(
        tr("AleRax's --speciation-gamma-categories: the likelihood is the mean over K categories whose "
           "speciation weights are the mean rates of K equal-probability bins of Gamma(α, α); the shape α "
           "is fitted with the rates. Each category costs a solve of its own; not with per-family rates"));
    recModel_ = new QComboBox;
    recModel_->addItem(tr("duplications, transfers and losses (UndatedDTL, AleRax default)"), "UndatedDTL");
    recModel_->addItem(tr("duplications and losses, no transfers (UndatedDL)"), "UndatedDL");
    noDup_ = new QCheckBox(tr("duplications (--no-dup)"));
    noDl_ = new QCheckBox(tr("duplication-loss term of the clades (--no-dl)"));
    noTl_ = new QCheckBox(tr("transfer-loss terms of the clades (--no-tl)"));
    noDup_->setToolTip(tr("D = 0: no duplications, and so no duplication-loss terms"));
    noDl_->setToolTip(tr("The clade equations lose 2 pD E Π; the extinction equations keep p^D E²"));
    noTl_->setToolTip(tr("The clade equations lose pT Ē Π and pT E Π̄; the extinction equations keep pT E Ē"));
    minCovered_ = new QSpinBox;
    minCovered_->setRange(1, 100000);
    minCovered_->setValue(4);
    minCovered_->setToolTip(
        tr("Families whose genes cover fewer species are left out (listed under Problems)"));

    auto* form = new QFormLayout;
    form->addRow(tr("Species tree"), withBrowse(species_, browseSpecies));
    form->addRow(tr("Families file"), withBrowse(families_, browseFamilies));
    auto* listButtons = new QVBoxLayout;
    listButtons->addWidget(addFiles);
    listButtons->addWidget(addFolder);
    listButtons->addWidget(removeSelected);
    listButtons->addStretch(1);
    auto* listRow = new QHBoxLayout;
    listRow->addWidget(geneTrees_, 1);
    listRow->addLayout(listButtons);
    form->addRow(tr("Gene-tree files"), listRow);
    auto* hint = new QLabel(
        tr("One family per file. A mapping file with the same name (fam1.nwk + fam1.link, .map or "
           ".mapping) is used when present; otherwise a gene's species is its name up to the first '_'."));
    hint->setWordWrap(true);
    form->addRow(QString(), hint);
    form->addRow(tr("Gene-tree rooting"), rooting_);
    form->addRow(tr("Transfers go"), constraint_);
    form->addRow(tr("Families originate"), origination_);
    form->addRow(tr("Speciation categories"), categories_);
    form->addRow(tr("Model events"), recModel_);
    auto* leaveOut = new QHBoxLayout;
    for (QCheckBox* box : {noDup_, noDl_, noTl_})
        leaveOut->addWidget(box);
    leaveOut->addStretch(1);
    form->addRow(tr("Leave out"), leaveOut);
    recModel_->setAccessibleName(tr("Model events"));
    noDup_->setAccessibleName(tr("Leave out duplications"));
    noDl_->setAccessibleName(tr("Leave out the duplication-loss term"));
    noTl_->setAccessibleName(tr("Leave out the transfer-loss terms"));
    form->addRow(tr("Fraction missing"), withBrowse(fractionMissing_, browseFractionMissing));
    form->addRow(tr("Transfer highways"), withBrowse(highways_, browseHighways));
    form->addRow(tr("Transfer rates"), pairwise_);
    form->addRow(tr("Species tree per family"), prune_);
    rooting_->setAccessibleName(tr("Gene-tree rooting"));
    constraint_->setAccessibleName(tr("Transfers go"));
    origination_->setAccessibleName(tr("Families originate"));
    categories_->setAccessibleName(tr("Speciation categories"));
    form->addRow(tr("Minimum species per family"), minCovered_);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons_);
    resize(720, 600);

    connect(browseSpecies, &QPushButton::clicked, this, [this] {
        QString path =
            QFileDialog::getOpenFileName(this, tr("Species tree"), species_->text(), tr(kTreeFilter));
        if (!path.isEmpty()) species_->setText(path);
    });
    connect(browseFamilies, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getOpenFileName(this, tr("Families file"), families_->text());
        if (!path.isEmpty()) families_->setText(path);
    });
    connect(browseFractionMissing, &QPushButton::clicked, this, [this] {
        QString path =
            QFileDialog::getOpenFileName(this, tr("Fraction-missing file"), fractionMissing_->text());
        if (!path.isEmpty()) fractionMissing_->setText(path);
    });
    connect(browseHighways, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getOpenFileName(this, tr("Transfer highways file"), highways_->text());
        if (!path.isEmpty()) highways_->setText(path);
    });
    connect(addFiles, &QPushButton::clicked, this, [this] {
        QStringList paths = QFileDialog::getOpenFileNames(this, tr("Gene-tree files"), {}, tr(kTreeFilter));
        QStringList mappings;
        for (const QString& p : paths)
            mappings << mappingFor(p);
        addGeneTrees(paths, mappings);
    });
    connect(addFolder, &QPushButton::clicked, this, [this] {
        QString folder = QFileDialog::getExistingDirectory(this, tr("Folder of gene-tree files"));
        if (folder.isEmpty()) return;
        QStringList trees = treeFilesIn(folder), mappings;
        for (const QString& t : trees)
            mappings << mappingFor(t);
        addGeneTrees(trees, mappings);
    });
    connect(removeSelected, &QPushButton::clicked, this, [this] {
        qDeleteAll(geneTrees_->selectedItems());
        updateOk();
    });
    connect(species_, &QLineEdit::textChanged, this, &OpenInputDialog::updateOk);
    connect(families_, &QLineEdit::textChanged, this, &OpenInputDialog::updateOk);
    connect(recModel_, &QComboBox::currentIndexChanged, this, &OpenInputDialog::updateModelOptions);
    connect(constraint_, &QComboBox::currentIndexChanged, this, &OpenInputDialog::updateModelOptions);
    for (QLineEdit* edit : {fractionMissing_, highways_})
        connect(edit, &QLineEdit::textChanged, this, &OpenInputDialog::updateModelOptions);
    for (QCheckBox* box : {noDup_, noDl_, noTl_, pairwise_, prune_})
        connect(box, &QCheckBox::toggled, this, &OpenInputDialog::updateModelOptions);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateModelOptions();
    updateOk();
}

void OpenInputDialog::updateModelOptions() {
    const bool transfers = recModel_->currentData().toString() == "UndatedDTL";
    // UndatedDL has no transfers to constrain or TL terms to drop; --no-dup goes with neither
    // UndatedDL nor --no-tl, and leaves no DL term to drop.
    constraint_->setEnabled(transfers);
    if (!transfers) constraint_->setCurrentIndex(0);
    for (QCheckBox* box : {noDup_, noTl_})
        if (!transfers) box->setChecked(false);
    noDup_->setEnabled(transfers && !noTl_->isChecked());
    noTl_->setEnabled(transfers && !noDup_->isChecked());
    noDl_->setEnabled(!noDup_->isChecked());
    // Highways, pairwise transfers and pruning: each enabled when the engine's own checks
    // (EventModel::validate, requirePrunable) accept the request with it on, else greyed with the
    // refusal as its tooltip. UndatedDL clears the first two; what is left refused is the pruning.
    const QSignalBlocker blocks[] = {QSignalBlocker(highways_), QSignalBlocker(pairwise_),
                                     QSignalBlocker(prune_)};
    if (!transfers) {
        highways_->clear();
        pairwise_->setChecked(false);
    }
    const LoadRequest now = request();
    auto refusal = [&now](bool highways, bool pairwise, bool prune) -> QString {
        EventModel events = now.options.events;
        events.pairwiseTransfers = pairwise;
        try {
            events.validate();
            requirePrunable(prune, !now.paths.fractionMissingFile.empty(), highways || pairwise,
                            now.constraint);
        } catch (const std::invalid_argument& e) {
            return QString::fromStdString(e.what());
        }
        return {};
    };
    const bool highways = !now.paths.highwaysFile.empty(), pairwise = pairwise_->isChecked();
    if (!refusal(highways, pairwise, prune_->isChecked()).isEmpty()) prune_->setChecked(false);
    const bool prune = prune_->isChecked();
    const QString noHighways = transfers ? refusal(true, pairwise, prune)
                                         : tr("--highways-file can only be used with --rec-model UndatedDTL");
    const QString noPairwise = refusal(highways, true, prune);
    const QString noPruning = refusal(highways, pairwise, true);
    for (auto [widget, why, tip] :
         {std::tuple<QWidget*, QString, const char*>{highways_, noHighways, kHighwaysTip},
          {pairwise_, noPairwise, kPairwiseTip},
          {prune_, noPruning, kPruneTip}}) {
        widget->setEnabled(why.isEmpty());
        widget->setToolTip(why.isEmpty() ? tr(tip) : tr("Unavailable: %1").arg(why));
    }
}

void OpenInputDialog::addGeneTrees(const QStringList& trees, const QStringList& mappings) {
    for (int i = 0; i < trees.size(); ++i) {
        const QString mapping = i < mappings.size() ? mappings[i] : QString();
        auto* item = new QListWidgetItem(
            mapping.isEmpty() ? trees[i]
                              : QString("%1   [mapping: %2]").arg(trees[i], QFileInfo(mapping).fileName()));
        item->setData(Qt::UserRole, trees[i]);
        item->setData(kMappingRole, mapping);
        geneTrees_->addItem(item);
    }
    updateOk();
}

void OpenInputDialog::addDiscovered(const DiscoveredInput& input) {
    if (!input.speciesTree.isEmpty()) species_->setText(input.speciesTree);
    if (!input.familiesFile.isEmpty()) families_->setText(input.familiesFile);
    addGeneTrees(input.geneTrees, input.mappings);
}

void OpenInputDialog::setRequest(const LoadRequest& r) {
    species_->setText(QString::fromStdString(r.paths.speciesTree));
    families_->setText(QString::fromStdString(r.paths.familiesFile));
    fractionMissing_->setText(QString::fromStdString(r.paths.fractionMissingFile));
    geneTrees_->clear();
    QStringList trees, mappings;
    for (std::size_t i = 0; i < r.paths.geneTrees.size(); ++i) {
        trees << QString::fromStdString(r.paths.geneTrees[i]);
        mappings << (i < r.paths.geneTreeMappings.size() ? QString::fromStdString(r.paths.geneTreeMappings[i])
                                                         : QString());
    }
    addGeneTrees(trees, mappings);
    rooting_->setCurrentIndex(
        std::max(0, rooting_->findData(QString::fromStdString(toString(r.options.rooting)))));
    constraint_->setCurrentIndex(
        std::max(0, constraint_->findData(QString::fromStdString(toString(r.constraint)))));
    origination_->setCurrentIndex(
        std::max(0, origination_->findData(QString::fromStdString(toString(r.options.origination)))));
    minCovered_->setValue(r.options.minCoveredSpecies);
    categories_->setValue(r.options.speciationCategories);
    recModel_->setCurrentIndex(r.options.events.recModel == RecModel::UndatedDL ? 1 : 0);
    noDup_->setChecked(r.options.events.noDup);
    noDl_->setChecked(r.options.events.noDl);
    noTl_->setChecked(r.options.events.noTl);
    highways_->setText(QString::fromStdString(r.paths.highwaysFile));
    pairwise_->setChecked(r.options.events.pairwiseTransfers);
    prune_->setChecked(r.options.pruneSpeciesTree);
    updateModelOptions();
}

LoadRequest OpenInputDialog::request() const {
    LoadRequest r;
    r.paths.speciesTree = species_->text().trimmed().toStdString();
    r.paths.familiesFile = families_->text().trimmed().toStdString();
    r.paths.fractionMissingFile = fractionMissing_->text().trimmed().toStdString();
    bool anyMapping = false;
    for (int i = 0; i < geneTrees_->count(); ++i) {
        r.paths.geneTrees.push_back(geneTrees_->item(i)->data(Qt::UserRole).toString().toStdString());
        r.paths.geneTreeMappings.push_back(geneTrees_->item(i)->data(kMappingRole).toString().toStdString());
        anyMapping = anyMapping || !r.paths.geneTreeMappings.back().empty();
    }
    if (!anyMapping) r.paths.geneTreeMappings.clear();
    r.options.rooting = parseGeneTreeRooting(rooting_->currentData().toString().toStdString());
    r.options.minCoveredSpecies = minCovered_->value();
    r.options.origination = parseOrigination(origination_->currentData().toString().toStdString());
    r.options.speciationCategories = categories_->value();
    r.constraint = parseTransferConstraint(constraint_->currentData().toString().toStdString());
    r.options.events.recModel = parseRecModel(recModel_->currentData().toString().toStdString());
    r.options.events.noDup = noDup_->isChecked();
    r.options.events.noDl = noDl_->isChecked() && noDl_->isEnabled();
    r.options.events.noTl = noTl_->isChecked();
    r.paths.highwaysFile = highways_->text().trimmed().toStdString();
    r.options.events.pairwiseTransfers = pairwise_->isChecked();
    r.options.pruneSpeciesTree = prune_->isChecked();
    return r;
}

void OpenInputDialog::updateOk() {
    const bool ok = !species_->text().trimmed().isEmpty() &&
                    (!families_->text().trimmed().isEmpty() || geneTrees_->count() > 0);
    buttons_->button(QDialogButtonBox::Open)->setEnabled(ok);
}

} // namespace gpurec::ui
