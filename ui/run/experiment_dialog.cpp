// ExperimentDialog: every edit re-expands the grid with engine::expandVariants (what the CLI will do),
// so a value the CLI would refuse is shown here, next to the axis, before anything runs.
#include "ui/run/experiment_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "engine/experiment/experiment.h"
#include "engine/model/errors.h"
#include "engine/workload/workload_parser.h"

namespace streamscope::ui {

namespace {

struct AxisInfo {
    engine::Axis axis;
    const char *title; // shown beside the check box
    const char *defaults; // the values offered when the workload does not vary this axis
    const char *hint; // what the values may be
    const char *probes; // values tried, comma-separated, to find out whether the axis applies to the workload
};

const std::array<AxisInfo, ExperimentDialog::kAxisCount> kAxes{{
    {engine::Axis::Memory, QT_TRANSLATE_NOOP("ExperimentDialog", "Host memory"), "pageable, pinned",
     QT_TRANSLATE_NOOP("ExperimentDialog", "pageable, pinned, registered, managed"), "pinned,pageable"},
    {engine::Axis::Api, QT_TRANSLATE_NOOP("ExperimentDialog", "Copy API"), "sync, async",
     QT_TRANSLATE_NOOP("ExperimentDialog", "sync (cudaMemcpy), async"), "async"},
    {engine::Axis::Streams, QT_TRANSLATE_NOOP("ExperimentDialog", "Streams"), "1, 2, 4, 8",
     QT_TRANSLATE_NOOP("ExperimentDialog", "counts, 1..4096"), "1,2,4,8"},
    {engine::Axis::Order, QT_TRANSLATE_NOOP("ExperimentDialog", "Issue order"), "depth-first, breadth-first",
     QT_TRANSLATE_NOOP("ExperimentDialog", "depth-first, breadth-first"), "depth-first"},
    {engine::Axis::Chunks, QT_TRANSLATE_NOOP("ExperimentDialog", "Chunks"), "4, 8, 16",
     QT_TRANSLATE_NOOP("ExperimentDialog", "counts, 1..4096"), "8,16,64,4,1"},
    {engine::Axis::Size, QT_TRANSLATE_NOOP("ExperimentDialog", "Transfer size"), "1 MiB, 16 MiB, 64 MiB",
     QT_TRANSLATE_NOOP("ExperimentDialog", "sizes: 4096, 64 KiB, 1 GiB"), "1 MiB"},
    {engine::Axis::Connections, QT_TRANSLATE_NOOP("ExperimentDialog", "Hardware queues"), "8, 32",
     QT_TRANSLATE_NOOP("ExperimentDialog", "CUDA_DEVICE_MAX_CONNECTIONS, 1..32"), "8"},
    {engine::Axis::PeerAccess, QT_TRANSLATE_NOOP("ExperimentDialog", "Peer access"), "on, off",
     QT_TRANSLATE_NOOP("ExperimentDialog", "on (direct), off (staged through the host)"), "on"},
    {engine::Axis::Devices, QT_TRANSLATE_NOOP("ExperimentDialog", "GPUs"), "1, 2",
     QT_TRANSLATE_NOOP("ExperimentDialog", "counts: device d runs on d mod N"), "2"},
    {engine::Axis::DefaultStream, QT_TRANSLATE_NOOP("ExperimentDialog", "Default stream"), "legacy, per-thread",
     QT_TRANSLATE_NOOP("ExperimentDialog", "legacy, per-thread"), "legacy"},
    {engine::Axis::Schedule, QT_TRANSLATE_NOOP("ExperimentDialog", "Schedule"), "overlapped, serial",
     QT_TRANSLATE_NOOP("ExperimentDialog", "overlapped (as written), serial (each stream after the one before)"),
     "overlapped"},
    {engine::Axis::MaxCtas, QT_TRANSLATE_NOOP("ExperimentDialog", "NCCL thread blocks"), "default, 4",
     QT_TRANSLATE_NOOP("ExperimentDialog", "default, or 1..64 (maxCTAs: what collectives take from compute)"),
     "default"},
    {engine::Axis::CtaPolicy, QT_TRANSLATE_NOOP("ExperimentDialog", "NCCL CTA policy"), "default, zero",
     QT_TRANSLATE_NOOP("ExperimentDialog", "default, efficiency, zero (copy engines where NCCL can)"), "default"},
    {engine::Axis::Launch, QT_TRANSLATE_NOOP("ExperimentDialog", "Launch"), "streams, graph",
     QT_TRANSLATE_NOOP("ExperimentDialog", "streams (a call per op), graph (one CUDA graph per repetition)"),
     "streams"},
    {engine::Axis::Pdl, QT_TRANSLATE_NOOP("ExperimentDialog", "PDL"), "off, on",
     QT_TRANSLATE_NOOP("ExperimentDialog", "off, on (programmatic dependent launch of compute and memory kernels)"),
     "on"},
}};

QString axisName(engine::Axis axis)
{
    return QString::fromUtf8(engine::toString(axis).data(), qsizetype(engine::toString(axis).size()));
}

// The values part of a --vary option, as the dialog shows it ("pageable, pinned").
QString shownValues(const std::string &option)
{
    QStringList values = QString::fromStdString(option.substr(option.find('=') + 1)).split(QLatin1Char(','));
    for (QString &v : values)
        v = v.trimmed();
    return values.join(QStringLiteral(", "));
}

} // namespace

const std::array<engine::Axis, ExperimentDialog::kAxisCount> &ExperimentDialog::axes()
{
    static const std::array<engine::Axis, kAxisCount> list = [] {
        std::array<engine::Axis, kAxisCount> a{};
        for (int i = 0; i < kAxisCount; ++i)
            a[std::size_t(i)] = kAxes[std::size_t(i)].axis;
        return a;
    }();
    return list;
}

ExperimentDialog::ExperimentDialog(const QString &workloadText, const QString &fileName, QWidget *parent) :
    QDialog(parent), m_workloadText(workloadText.toStdString()), m_fileName(fileName.toStdString())
{
    setObjectName(QStringLiteral("experimentDialog"));
    setWindowTitle(tr("Compare variants"));

    // The workload's own comparison and repetitions; an invalid workload still opens the dialog, which
    // then says what is wrong with it.
    std::vector<std::string> own;
    QString workloadName = fileName;
    int workloadWarmup = -1;
    try {
        const engine::Workload w = engine::parseWorkload(m_workloadText, m_fileName);
        own = w.compare;
        m_workloadRepetitions = w.repetitions;
        workloadWarmup = w.warmup;
        workloadName = QString::fromStdString(w.name);
    } catch (const engine::Error &) {
        // revalidate() reports it
    }

    auto *intro =
        new QLabel(tr("<b>%1</b><br>Each variant is the workload with one value of every checked axis; all of them run "
                      "one after another on the same GPU, each with its warm-up and repetitions, and open side by side "
                      "when done.")
                       .arg(workloadName.toHtmlEscaped()),
                   this);
    intro->setWordWrap(true);

    auto *axesBox = new QGroupBox(tr("Vary"), this);
    auto *grid = new QGridLayout(axesBox);
    for (int i = 0; i < kAxisCount; ++i) {
        const AxisInfo &info = kAxes[std::size_t(i)];
        Row &row = m_rows[std::size_t(i)];
        row.check = new QCheckBox(tr(info.title), axesBox);
        row.check->setObjectName(QStringLiteral("vary-%1").arg(axisName(info.axis)));
        row.values = new QLineEdit(QString::fromUtf8(info.defaults), axesBox);
        row.values->setObjectName(QStringLiteral("values-%1").arg(axisName(info.axis)));
        row.values->setToolTip(tr("Values separated by commas: %1").arg(tr(info.hint)));
        row.hint = new QLabel(tr(info.hint), axesBox);
        row.hint->setWordWrap(true);
        // Does the axis apply to this workload at all? (memory needs host buffers, streams a pipeline, ...)
        // One value at a time: a value can be wrong for this workload (8 chunks on 16 streams) while the
        // axis itself applies.
        QString why;
        bool applies = false;
        for (const QString &value : QString::fromUtf8(info.probes).split(QLatin1Char(','))) {
            engine::ExperimentSpec probe{m_workloadText, m_fileName, {}};
            probe.axes.push_back(engine::AxisValues{info.axis, {value.toStdString()}});
            try {
                (void)engine::expandVariants(probe);
                applies = true;
                break;
            } catch (const engine::WorkloadError &) {
                // The base itself is invalid: every axis stays offered, the status says why nothing runs.
                applies = true;
                break;
            } catch (const engine::Error &e) {
                if (why.isEmpty())
                    why = QString::fromUtf8(e.what());
            }
        }
        if (!applies) {
            row.available = false;
            row.check->setToolTip(why);
            row.hint->setText(tr("not for this workload"));
            row.hint->setToolTip(why);
        }
        row.check->setEnabled(row.available);
        row.values->setEnabled(false);
        // The axes in two halves side by side, so that every row fits a projector's 720 lines.
        const int half = (kAxisCount + 1) / 2, gridRow = i % half, column = (i / half) * 3;
        grid->addWidget(row.check, gridRow, column);
        grid->addWidget(row.values, gridRow, column + 1);
        grid->addWidget(row.hint, gridRow, column + 2);
        connect(row.check, &QCheckBox::toggled, this, [this, i](bool on) {
            m_rows[std::size_t(i)].values->setEnabled(on);
            revalidate();
        });
        connect(row.values, &QLineEdit::textChanged, this, &ExperimentDialog::revalidate);
    }
    for (const int half : {0, 3}) {
        grid->setColumnStretch(half + 1, 2);
        grid->setColumnStretch(half + 2, 1);
    }

    for (const std::string &option : own) {
        const auto eq = option.find('=');
        const auto axis = engine::axisFromString(option.substr(0, eq));
        if (!axis)
            continue; // the parser checked it; cannot happen for a workload that parsed
        m_ownOrder << axisName(*axis);
        Row &row = m_rows[std::size_t(rowOf(*axis))];
        row.values->setText(shownValues(option));
        row.check->setChecked(true);
    }

    auto *runBox = new QGroupBox(tr("Each variant"), this);
    auto *form = new QFormLayout(runBox);
    m_repetitions = new QSpinBox(runBox);
    m_repetitions->setObjectName(QStringLiteral("repetitions"));
    m_repetitions->setRange(0, engine::kMaxRepetitions);
    m_repetitions->setSpecialValueText(m_workloadRepetitions > 0
                                           ? tr("as the workload says (%1)").arg(m_workloadRepetitions)
                                           : tr("as the workload says"));
    m_repetitions->setValue(0);
    m_warmup = new QSpinBox(runBox);
    m_warmup->setObjectName(QStringLiteral("warmup"));
    m_warmup->setRange(-1, engine::kMaxWarmup);
    m_warmup->setSpecialValueText(workloadWarmup >= 0 ? tr("as the workload says (%1)").arg(workloadWarmup)
                                                      : tr("as the workload says"));
    m_warmup->setValue(-1);
    form->addRow(tr("Measured &repetitions:"), m_repetitions);
    form->addRow(tr("&Warm-up rounds:"), m_warmup);
    connect(m_repetitions, &QSpinBox::valueChanged, this, &ExperimentDialog::revalidate);
    connect(m_warmup, &QSpinBox::valueChanged, this, &ExperimentDialog::revalidate);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("experimentStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(axesBox);
    layout->addWidget(runBox);
    layout->addWidget(m_status);
    layout->addWidget(m_buttons);
    resize(sizeHint().expandedTo(QSize(760, 0)));
    revalidate();
}

int ExperimentDialog::rowOf(engine::Axis axis) const
{
    for (int i = 0; i < kAxisCount; ++i)
        if (kAxes[std::size_t(i)].axis == axis)
            return i;
    return 0;
}

QStringList ExperimentDialog::varyOptions() const
{
    QStringList names = m_ownOrder;
    for (const AxisInfo &info : kAxes)
        if (!names.contains(axisName(info.axis)))
            names << axisName(info.axis);
    QStringList out;
    for (const QString &name : names) {
        const auto axis = engine::axisFromString(name.toStdString());
        const Row &row = m_rows[std::size_t(rowOf(*axis))];
        if (row.available && row.check->isChecked())
            out << name + QLatin1Char('=') + row.values->text().trimmed();
    }
    return out;
}

int ExperimentDialog::repetitions() const
{
    return m_repetitions->value() == 0 ? -1 : m_repetitions->value();
}
int ExperimentDialog::warmup() const
{
    return m_warmup->value();
}

void ExperimentDialog::setAxis(engine::Axis axis, bool enabled, const QString &values)
{
    Row &row = m_rows[std::size_t(rowOf(axis))];
    if (!values.isNull())
        row.values->setText(values);
    row.check->setChecked(enabled);
}

bool ExperimentDialog::axisEnabled(engine::Axis axis) const
{
    const Row &row = m_rows[std::size_t(rowOf(axis))];
    return row.available && row.check->isChecked();
}

bool ExperimentDialog::axisAvailable(engine::Axis axis) const
{
    return m_rows[std::size_t(rowOf(axis))].available;
}
QString ExperimentDialog::axisValues(engine::Axis axis) const
{
    return m_rows[std::size_t(rowOf(axis))].values->text();
}
void ExperimentDialog::setRepetitions(int repetitions)
{
    m_repetitions->setValue(repetitions < 0 ? 0 : repetitions);
}
void ExperimentDialog::setWarmup(int warmup)
{
    m_warmup->setValue(warmup);
}

void ExperimentDialog::revalidate()
{
    if (!m_buttons)
        return; // still being built: the constructor validates once at its end
    m_problem.clear();
    m_variantCount = 0;
    for (Row &row : m_rows)
        row.values->setStyleSheet(QString());

    engine::ExperimentSpec spec{m_workloadText, m_fileName, {}};
    for (const QString &option : varyOptions()) {
        try {
            spec.axes.push_back(engine::parseVaryOption(option.toStdString()));
        } catch (const engine::Error &e) {
            // Shown beside the axis it is about: the field turns red and the message names the value.
            const auto axis = engine::axisFromString(option.section(QLatin1Char('='), 0, 0).toStdString());
            if (axis)
                m_rows[std::size_t(rowOf(*axis))].values->setStyleSheet(
                    QStringLiteral("QLineEdit { border: 2px solid #d55e00; }"));
            m_problem = QString::fromUtf8(e.what());
            break;
        }
    }
    if (m_problem.isEmpty()) {
        try {
            m_variantCount = int(engine::expandVariants(spec).size());
        } catch (const engine::Error &e) {
            m_problem = QString::fromUtf8(e.what());
        }
    }

    QPushButton *ok = m_buttons->button(QDialogButtonBox::Ok);
    if (!m_problem.isEmpty()) {
        m_status->setStyleSheet(QStringLiteral("color: #d55e00;"));
        m_status->setText(m_problem);
        ok->setText(tr("Run"));
        ok->setEnabled(false);
        return;
    }
    m_status->setStyleSheet(QString());
    const int reps = repetitions() > 0 ? repetitions() : m_workloadRepetitions;
    QString text = m_variantCount == 1
                       ? tr("No axis is checked: the workload runs alone, as Run does, but is kept as a comparison.")
                       : tr("%n variants", nullptr, m_variantCount);
    if (reps > 0)
        text += reps == 1 ? tr(", 1 measured repetition each") : tr(", %1 measured repetitions each").arg(reps);
    text += tr(". Runs on the GPU through streamscope-cli; Cancel stops it.");
    m_status->setText(text);
    ok->setText(m_variantCount == 1 ? tr("Run") : tr("Run %1 variants").arg(m_variantCount));
    ok->setEnabled(true);
}

} // namespace streamscope::ui
