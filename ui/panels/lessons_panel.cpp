// LessonsPanel: reads only each preset's header (name, description, compare) through the engine's
// readWorkloadHeader, comments allowed, so a preset that a newer format would reject still shows up
// (its full validation happens when it is opened in the editor).
#include "ui/panels/lessons_panel.h"

#include <algorithm>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGridLayout>
#include <QIcon>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include "engine/workload/workload_parser.h"
#include "ui/common/format_units.h"

namespace streamscope::ui {

LessonsPanel::LessonsPanel(QWidget *parent) :
    QWidget(parent), m_list(new QListWidget(this)), m_status(new QLabel(this)),
    m_openWorkload(new QPushButton(tr("Open in &editor"), this)),
    m_openExample(new QPushButton(tr("Show e&xample trace"), this)),
    m_compare(new QPushButton(tr("&Compare variants…"), this)),
    m_openComparison(new QPushButton(tr("Show recorded co&mparison"), this))
{
    m_compare->setObjectName(QStringLiteral("lessonCompare"));
    m_openComparison->setObjectName(QStringLiteral("lessonRecordedComparison"));
    m_list->setObjectName(QStringLiteral("lessonList"));
    // Lesson names are sentences: wrap them rather than hide their ends behind a scroll bar.
    m_list->setWordWrap(true);
    // Wrapped, never elided: the item's height is measured for the wrapped text, and an elided first line
    // left "streams ..." above an empty second one.
    m_list->setTextElideMode(Qt::ElideNone);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setSpacing(1);
    m_list->setToolTip(tr("Click a lesson to open its recorded trace (or your last run of it) with its "
                          "explanation beside the timeline"));
    m_status->setObjectName(QStringLiteral("lessonStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_status->hide();
    m_openWorkload->setToolTip(tr("Load this workload into the editor, to run or change it"));
    m_openExample->setToolTip(tr("Open the trace of this workload recorded on a real GPU"));

    auto *buttons = new QGridLayout;
    buttons->addWidget(m_openWorkload, 0, 0);
    buttons->addWidget(m_openExample, 0, 1);
    buttons->addWidget(m_compare, 1, 0);
    buttons->addWidget(m_openComparison, 1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_status);
    layout->addLayout(buttons);

    connect(m_list, &QListWidget::currentRowChanged, this, &LessonsPanel::showCurrent);
    // One click opens the lesson (a click, not every change of the current row: the window sets the
    // current row itself when it opens a lesson's file). Enter and double-click do the same.
    auto activate = [this](QListWidgetItem *item) {
        const int index = item ? m_list->row(item) : -1;
        if (index >= 0 && index < int(m_lessons.size()))
            emit lessonActivated(index);
    };
    connect(m_list, &QListWidget::itemClicked, this, activate);
    connect(m_list, &QListWidget::itemActivated, this, [this, activate](QListWidgetItem *item) {
        // itemActivated also follows a click on platforms that activate on single click: once is enough.
        if (!style()->styleHint(QStyle::SH_ItemView_ActivateItemOnSingleClick, nullptr, m_list))
            activate(item);
    });
    connect(m_openWorkload, &QPushButton::clicked, this, [this] {
        if (const int index = currentLesson(); index >= 0)
            emit workloadOpenRequested(m_lessons[std::size_t(index)].workloadPath);
    });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        if (const int index = currentLesson(); index >= 0 && !m_lessons[std::size_t(index)].compare.isEmpty())
            emit compareRequested(m_lessons[std::size_t(index)].workloadPath);
    });
    connect(m_openComparison, &QPushButton::clicked, this, [this] {
        if (const int index = currentLesson(); index >= 0 && !m_lessons[std::size_t(index)].comparisonPath.isEmpty())
            emit comparisonOpenRequested(m_lessons[std::size_t(index)].comparisonPath);
    });
    connect(m_openExample, &QPushButton::clicked, this, [this] {
        if (const int index = currentLesson(); index >= 0 && !m_lessons[std::size_t(index)].examplePath.isEmpty())
            emit exampleOpenRequested(m_lessons[std::size_t(index)].examplePath);
    });
    showCurrent();
}

Lesson LessonsPanel::readLesson(const QString &workloadPath, const QString &examplesDir)
{
    Lesson lesson;
    lesson.workloadPath = workloadPath;
    const QFileInfo info(workloadPath);
    lesson.name = info.completeBaseName();
    if (!examplesDir.isEmpty()) {
        const QString example = QDir(examplesDir).filePath(info.completeBaseName() + QStringLiteral(".sstrace"));
        if (QFileInfo::exists(example))
            lesson.examplePath = example;
        const QString comparison =
            QDir(examplesDir)
                .filePath(QStringLiteral("comparisons/") + info.completeBaseName() + QStringLiteral(".sscompare"));
        if (QFileInfo::exists(comparison))
            lesson.comparisonPath = comparison;
    }
    QFile file(workloadPath);
    if (!file.open(QIODevice::ReadOnly)) {
        lesson.error = tr("%1: cannot be read: %2").arg(workloadPath, file.errorString());
        return lesson;
    }
    const QByteArray text = file.readAll();
    try {
        // The engine's reader: comments allowed as in every workload file, errors with line and JSON path.
        const engine::WorkloadHeader header = engine::readWorkloadHeader(
            std::string_view(text.constData(), std::size_t(text.size())), workloadPath.toStdString());
        if (!header.name.empty())
            lesson.name = qs(header.name);
        lesson.description = qs(header.description);
        lesson.keyFigure = header.keyFigure;
        for (const std::string &axis : header.compare)
            lesson.compare << qs(axis);
    } catch (const engine::Error &e) {
        lesson.error = qs(e.what());
        return lesson;
    }
    try {
        // How many GPUs it needs: the full parse knows every device a buffer, stream or thread names. A
        // file only the header reader accepts (a newer format) is taken to need one.
        const std::vector<int> used =
            engine::parseWorkload(std::string_view(text.constData(), std::size_t(text.size())),
                                  workloadPath.toStdString())
                .usedDevices();
        if (!used.empty())
            lesson.gpusNeeded = used.back() + 1;
    } catch (const engine::Error &) {
        // opened in the editor, the file says what is wrong with it
    }
    return lesson;
}

void LessonsPanel::load(const QString &workloadsDir, const QString &examplesDir)
{
    m_lessons.clear();
    m_list->clear();
    if (!workloadsDir.isEmpty()) {
        const QDir dir(workloadsDir);
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString &file : files)
            m_lessons.push_back(readLesson(dir.filePath(file), examplesDir));
    }
    // A lesson with a recording is marked by a dot before its name (an icon, so that the names line up
    // and a wrapped name never pushes the mark onto a line of its own); the others get an empty one.
    const int side = std::max(8, m_list->fontMetrics().height() / 2);
    QPixmap dot(side, side), none(side, side);
    dot.fill(Qt::transparent);
    none.fill(Qt::transparent);
    {
        QPainter p(&dot);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(m_list->palette().color(QPalette::Text));
        p.drawEllipse(QRectF(1, 1, side - 2, side - 2));
    }
    m_list->setIconSize(QSize(side, side));
    for (const Lesson &lesson : m_lessons) {
        auto *item = new QListWidgetItem(lesson.name, m_list);
        const bool recorded = lesson.error.isEmpty() && !lesson.examplePath.isEmpty();
        item->setIcon(QIcon(recorded ? dot : none));
        item->setData(Qt::UserRole, recorded);
        if (!lesson.error.isEmpty())
            item->setForeground(QColor(0xd5, 0x5e, 0x00));
    }
    updateItems();
    if (!m_lessons.empty())
        m_list->setCurrentRow(0);
    showCurrent();
}

int LessonsPanel::currentLesson() const
{
    const int row = m_list->currentRow();
    return row >= 0 && row < int(m_lessons.size()) ? row : -1;
}

void LessonsPanel::setCurrentLesson(int index)
{
    if (index >= 0 && index < int(m_lessons.size()))
        m_list->setCurrentRow(index);
    else if (index < 0)
        m_list->setCurrentRow(-1); // none: a trace that is no lesson's is open
}

int LessonsPanel::lessonForPath(const QString &path) const
{
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonical.isEmpty())
        return -1;
    for (std::size_t i = 0; i < m_lessons.size(); ++i) {
        if (QFileInfo(m_lessons[i].workloadPath).canonicalFilePath() == canonical
            || (!m_lessons[i].examplePath.isEmpty()
                && QFileInfo(m_lessons[i].examplePath).canonicalFilePath() == canonical))
            return int(i);
    }
    return -1;
}

void LessonsPanel::showCurrent()
{
    const int index = currentLesson();
    if (index < 0) {
        m_status->setText(m_lessons.empty() ? tr("No lessons were found. They live in resources/workloads/ next to "
                                                 "the application.")
                                            : QString());
        m_status->setVisible(!m_status->text().isEmpty());
        m_openWorkload->setEnabled(false);
        m_openExample->setEnabled(false);
        m_compare->setEnabled(false);
        m_openComparison->setEnabled(false);
        return;
    }
    const Lesson &lesson = m_lessons[std::size_t(index)];
    const bool tooFewGpus = needsMoreGpus(lesson);
    // What keeps a lesson from opening or running here is in its own item, never in a note under the
    // list: a note that appeared on the mouse press shrank the list, which wrapped its names again, and the
    // release landed on another lesson (no click: the lesson did not open).
    m_status->hide();
    m_openWorkload->setEnabled(lesson.error.isEmpty());
    m_openExample->setEnabled(!lesson.examplePath.isEmpty());
    m_openExample->setToolTip(lesson.examplePath.isEmpty()
                                  ? tr("No example trace has been recorded for this lesson yet")
                                  : tr("Open %1, recorded on a real GPU").arg(lesson.examplePath));
    m_compare->setEnabled(lesson.error.isEmpty() && !lesson.compare.isEmpty() && m_canRun && !tooFewGpus);
    m_compare->setToolTip(
        lesson.compare.isEmpty() ? tr("This lesson has no comparison")
        : !m_canRun              ? tr("No usable GPU here: open the recorded comparison instead")
        : tooFewGpus ? tr("This lesson needs %1 GPUs: open the recorded comparison instead").arg(lesson.gpusNeeded)
                     : tr("Run this lesson's comparison on your GPU: --vary %1")
                           .arg(lesson.compare.join(QStringLiteral(" --vary "))));
    m_openComparison->setEnabled(!lesson.comparisonPath.isEmpty());
    m_openComparison->setToolTip(lesson.comparisonPath.isEmpty()
                                     ? tr("No comparison has been recorded for this lesson")
                                     : tr("Open %1, recorded on a real GPU").arg(lesson.comparisonPath));
}

bool LessonsPanel::needsMoreGpus(const Lesson &lesson) const
{
    return lesson.gpusNeeded > 1 && (!m_canRun || (m_gpuCount >= 0 && m_gpuCount < lesson.gpusNeeded));
}

QString LessonsPanel::note(int index) const
{
    if (index < 0 || index >= int(m_lessons.size()))
        return {};
    const Lesson &lesson = m_lessons[std::size_t(index)];
    if (!lesson.error.isEmpty())
        return lesson.error;
    if (!needsMoreGpus(lesson))
        return {};
    return tr("This lesson needs %1 GPUs; this machine has %2.")
               .arg(lesson.gpusNeeded)
               .arg(m_canRun && m_gpuCount > 0 ? QString::number(m_gpuCount) : tr("none usable"))
           + QLatin1Char(' ')
           + (lesson.examplePath.isEmpty()
                  ? tr("No recording of it is bundled yet: run it on a machine with %1 GPUs.").arg(lesson.gpusNeeded)
                  : tr("Its example was recorded on a host with %1 GPUs.").arg(lesson.gpusNeeded));
}

void LessonsPanel::updateItems()
{
    for (int i = 0; i < m_list->count() && i < int(m_lessons.size()); ++i) {
        const Lesson &lesson = m_lessons[std::size_t(i)];
        QListWidgetItem *item = m_list->item(i);
        const bool recorded = item->data(Qt::UserRole).toBool();
        // A second line for what the lesson needs, the whole note in the tooltip: both stay put while the
        // lessons are clicked (only the device check changes them).
        QString text = lesson.name;
        if (!lesson.error.isEmpty())
            text += QLatin1Char('\n') + tr("cannot be read");
        else if (needsMoreGpus(lesson))
            text += QLatin1Char('\n')
                    + (recorded ? tr("%1 GPUs: shows its recording").arg(lesson.gpusNeeded)
                                : tr("%1 GPUs: no recording yet").arg(lesson.gpusNeeded));
        item->setText(text);
        const QString why = note(i);
        item->setToolTip(lesson.name + QLatin1Char('\n') + lesson.workloadPath
                         + (recorded ? tr("\n● recorded on a real GPU: %1").arg(lesson.examplePath) : QString())
                         + (why.isEmpty() ? QString() : QLatin1Char('\n') + why));
    }
}

void LessonsPanel::setCanRun(bool canRun)
{
    m_canRun = canRun;
    updateItems();
    showCurrent();
}

void LessonsPanel::setGpuCount(int count)
{
    m_gpuCount = count;
    updateItems();
    showCurrent();
}

} // namespace streamscope::ui
