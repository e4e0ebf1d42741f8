// FindBar: see find_bar.h.
#include "ui/panels/find_bar.h"

#include <QBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolButton>

#include <algorithm>
#include <initializer_list>
#include <set>

#include "engine/model/op_colors.h"
#include "engine/model/op_vocabulary.h"
#include "engine/model/units.h"
#include "ui/common/format_units.h"

namespace streamscope::ui {

FindBar::FindBar(QWidget *parent) :
    QWidget(parent), m_name(new QLineEdit(this)), m_regex(new QCheckBox(tr("Re&gex"), this)),
    m_kind(new QComboBox(this)), m_lane(new QComboBox(this)), m_min(new QLineEdit(this)), m_max(new QLineEdit(this)),
    m_filter(new QCheckBox(tr("F&ilter"), this)), m_previous(new QToolButton(this)), m_next(new QToolButton(this)),
    m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("findBar"));
    m_name->setPlaceholderText(tr("Find ops by name, NVTX range or CUDA call"));
    m_name->setClearButtonEnabled(true);
    m_name->setMinimumWidth(220);
    m_regex->setToolTip(tr("Read the name as a regular expression (ECMAScript, without case)"));
    m_kind->addItem(tr("any kind"));
    for (int k = 0; k < int(engine::kOpKindCount); ++k) {
        const auto kind = engine::OpKind(k);
        m_kind->addItem(qs(engine::toString(kind)), k);
    }
    m_lane->addItem(tr("any lane"));
    m_lane->setMinimumContentsLength(10);
    m_lane->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_min->setPlaceholderText(tr("at least"));
    m_max->setPlaceholderText(tr("at most"));
    for (QLineEdit *field : {m_min, m_max})
        field->setToolTip(tr("A duration: 50 us, 1.5 ms, 2 s (a bare number is in nanoseconds)"));
    fitDurationFields();
    m_filter->setToolTip(tr("Dim everything else on the timeline and hide it from the operations table"));
    m_previous->setArrowType(Qt::UpArrow);
    m_previous->setToolTip(tr("Previous match (Shift+Enter)"));
    m_next->setArrowType(Qt::DownArrow);
    m_next->setToolTip(tr("Next match (Enter)"));
    auto *closeButton = new QToolButton(this);
    closeButton->setText(QStringLiteral("✕"));
    closeButton->setToolTip(tr("Close (Escape)"));
    closeButton->setAutoRaise(true);
    m_status->setMinimumWidth(110);

    // Two groups, side by side where the bar has room and one above the other where it has not (beside
    // the lessons at 1280x720): the bar never makes the window wider (minimumSizeHint, resizeEvent).
    auto *query = new QHBoxLayout;
    query->addWidget(new QLabel(tr("Find:"), this));
    query->addWidget(m_name, 2);
    query->addWidget(m_regex);
    query->addWidget(m_kind);
    query->addWidget(m_lane);
    auto *walk = new QHBoxLayout;
    walk->addWidget(new QLabel(tr("duration"), this));
    walk->addWidget(m_min);
    walk->addWidget(new QLabel(QStringLiteral("–"), this));
    walk->addWidget(m_max);
    walk->addWidget(m_filter);
    walk->addWidget(m_previous);
    walk->addWidget(m_next);
    walk->addWidget(m_status, 1);
    walk->addWidget(closeButton);
    m_rows = new QBoxLayout(QBoxLayout::LeftToRight, this);
    m_rows->setContentsMargins(4, 2, 4, 2);
    m_rows->addLayout(query, 3);
    m_rows->addLayout(walk, 2);

    connect(m_name, &QLineEdit::textChanged, this, &FindBar::applyQuery);
    connect(m_min, &QLineEdit::textChanged, this, &FindBar::applyQuery);
    connect(m_max, &QLineEdit::textChanged, this, &FindBar::applyQuery);
    connect(m_regex, &QCheckBox::toggled, this, &FindBar::applyQuery);
    connect(m_filter, &QCheckBox::toggled, this, &FindBar::applyQuery);
    connect(m_kind, &QComboBox::currentIndexChanged, this, &FindBar::applyQuery);
    connect(m_lane, &QComboBox::currentIndexChanged, this, &FindBar::applyQuery);
    connect(m_previous, &QToolButton::clicked, this, &FindBar::findPrevious);
    connect(m_next, &QToolButton::clicked, this, &FindBar::findNext);
    connect(closeButton, &QToolButton::clicked, this, &FindBar::close);
    for (QLineEdit *field : {m_name, m_min, m_max})
        field->installEventFilter(this);
    updateStatus();
}

void FindBar::fitDurationFields()
{
    // Room for "150.5 ms" and the placeholders in the field's own type, inside its frame and margins,
    // however the row is squeezed (a width fixed from the type at construction left about 30 px of text
    // where the field's type grew or its style's frame was wider: "50 us" read as "0 us").
    for (QLineEdit *field : {m_min, m_max}) {
        const QFontMetrics fm(field->font());
        int text = fm.horizontalAdvance(QStringLiteral("150.5 ms"));
        for (const QString &placeholder : {m_min->placeholderText(), m_max->placeholderText()})
            text = std::max(text, fm.horizontalAdvance(placeholder));
        const QMargins margins = field->textMargins();
        const int frame = field->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, nullptr, field);
        // QLineEdit keeps 2 px of its own on each side of the text, and a cursor's width.
        field->setFixedWidth(text + margins.left() + margins.right() + 2 * frame + 2 * 2 + 4);
    }
}

int FindBar::durationTextRoom(const QLineEdit *field)
{
    const QMargins margins = field->textMargins();
    const int frame = field->style()->pixelMetric(QStyle::PM_DefaultFrameWidth, nullptr, field);
    return field->width() - margins.left() - margins.right() - 2 * frame - 2 * 2;
}

void FindBar::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange)
        fitDurationFields();
}

int FindBar::oneRowWidth() const
{
    const QMargins margins = m_rows->contentsMargins();
    return m_rows->itemAt(0)->minimumSize().width() + m_rows->spacing() + m_rows->itemAt(1)->minimumSize().width()
           + margins.left() + margins.right();
}

QSize FindBar::minimumSizeHint() const
{
    // As narrow as the two rows allow: the window decides the width, the bar wraps to fit it.
    const QMargins margins = m_rows->contentsMargins();
    const QSize rows = m_rows->minimumSize();
    const int width = std::max(m_rows->itemAt(0)->minimumSize().width(), m_rows->itemAt(1)->minimumSize().width())
                      + margins.left() + margins.right();
    return {width, rows.height()};
}

void FindBar::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    const auto direction = width() < oneRowWidth() ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight;
    if (m_rows->direction() != direction)
        m_rows->setDirection(direction);
}

void FindBar::setDocument(TraceDocument *document)
{
    m_connections.clear();
    m_document = document;
    if (document) {
        m_connections << connect(document, &TraceDocument::traceChanged, this, [this] {
            fillLanes();
            applyQuery(); // the query carries over to the new trace
        });
        m_connections << connect(document, &TraceDocument::matchesChanged, this, &FindBar::updateStatus);
        m_connections << connect(document, &TraceDocument::selectionChanged, this, &FindBar::updateStatus);
    }
    fillLanes();
    applyQuery();
}

void FindBar::fillLanes()
{
    const QString current = m_lane->currentIndex() > 0 ? m_lane->currentText() : QString();
    const QSignalBlocker block(m_lane);
    while (m_lane->count() > 1)
        m_lane->removeItem(1);
    if (!m_document || !m_document->trace())
        return;
    // Streams first, then host threads, each name once.
    std::set<std::string> seen;
    for (const auto &stream : m_document->trace()->streams)
        if (seen.insert(stream.name).second)
            m_lane->addItem(QString::fromStdString(stream.name));
    for (const auto &thread : m_document->trace()->hostThreads)
        if (!thread.name.empty() && seen.insert(thread.name).second)
            m_lane->addItem(QString::fromStdString(thread.name));
    const int again = current.isEmpty() ? -1 : m_lane->findText(current);
    m_lane->setCurrentIndex(again > 0 ? again : 0);
}

void FindBar::applyQuery()
{
    m_inputError.clear();
    engine::OpQuery query;
    query.text = m_name->text().toStdString();
    query.regex = m_regex->isChecked();
    if (m_kind->currentIndex() > 0)
        query.kind = engine::OpKind(m_kind->currentData().toInt());
    if (m_lane->currentIndex() > 0)
        query.lane = m_lane->currentText().toStdString();
    // Each field parsed once: its value into the query, or its text coloured and named as the problem.
    auto duration = [&](QLineEdit *field, std::int64_t &out) {
        const QString text = field->text().trimmed();
        bool bad = false;
        if (!text.isEmpty()) {
            if (const auto ns = engine::parseDuration(text.toStdString()); ns && *ns >= 0)
                out = *ns;
            else
                bad = true;
        }
        if (bad && m_inputError.isEmpty())
            m_inputError = tr("'%1' is not a duration (50 us, 1.5 ms)").arg(text);
        field->setStyleSheet(bad ? QStringLiteral("color: #d55e00") : QString());
    };
    duration(m_min, query.minDurationNs);
    duration(m_max, query.maxDurationNs);
    if (m_document) {
        if (!m_inputError.isEmpty())
            m_document->clearQuery(); // a half-typed field matches nothing rather than everything
        else
            m_document->setQuery(query, m_filter->isChecked());
    }
    updateStatus();
}

QString FindBar::statusText() const
{
    if (!m_inputError.isEmpty())
        return m_inputError;
    if (!m_document || !m_document->hasQuery())
        return {};
    if (!m_document->queryError().isEmpty())
        return m_document->queryError();
    const int count = int(m_document->matches().size());
    if (count == 0)
        return tr("No match");
    const int at = m_document->selectedMatchIndex();
    return at >= 0 ? tr("%1 of %2").arg(at + 1).arg(count) : (count == 1 ? tr("1 match") : tr("%1 matches").arg(count));
}

void FindBar::updateStatus()
{
    const QString text = statusText();
    const bool problem =
        !m_inputError.isEmpty() || (m_document && !m_document->queryError().isEmpty()) || text == tr("No match");
    m_status->setText(text);
    m_status->setStyleSheet(problem ? QStringLiteral("color: #d55e00") : QString());
    const bool any = m_document && !m_document->matches().empty();
    m_previous->setEnabled(any);
    m_next->setEnabled(any);
    m_name->setStyleSheet(problem && !m_name->text().isEmpty() ? QStringLiteral("color: #d55e00") : QString());
}

void FindBar::activate()
{
    show();
    m_name->setFocus(Qt::ShortcutFocusReason);
    m_name->selectAll();
}

void FindBar::findNext()
{
    if (m_document)
        m_document->selectNextMatch(false);
}

void FindBar::findPrevious()
{
    if (m_document)
        m_document->selectNextMatch(true);
}

void FindBar::close()
{
    // What narrows the search goes with it (durations, kind, lane, Filter); the name (and Regex) stays,
    // selected when the bar opens again. Quietly: each change would run the query again.
    for (QWidget *field : std::initializer_list<QWidget *>{m_min, m_max, m_kind, m_lane, m_filter}) {
        const QSignalBlocker quiet(field);
        if (auto *line = qobject_cast<QLineEdit *>(field))
            line->clear();
        else if (auto *box = qobject_cast<QComboBox *>(field))
            box->setCurrentIndex(0);
        else if (auto *check = qobject_cast<QCheckBox *>(field))
            check->setChecked(false);
    }
    m_inputError.clear();
    hide();
    if (m_document)
        m_document->clearQuery();
    updateStatus();
}

bool FindBar::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (key->modifiers() & Qt::ShiftModifier)
                findPrevious();
            else
                findNext();
            return true;
        }
        if (key->key() == Qt::Key_Escape) {
            close();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void FindBar::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        close();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace streamscope::ui
