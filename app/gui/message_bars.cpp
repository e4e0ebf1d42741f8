// MessageBars: see message_bars.h.
#include "app/gui/message_bars.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QWidget>

namespace streamscope::gui {

namespace {

// A line of plain text above the timeline, hidden until it has something to say.
QLabel *makeBanner(QWidget *parent, const QString &name, const QString &background, int margin)
{
    auto *label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setMargin(margin);
    label->setStyleSheet(QStringLiteral("background:%1; color:#000; border-radius:4px;").arg(background));
    label->hide();
    return label;
}

} // namespace

MessageBars::MessageBars(QWidget *parent) :
    QObject(parent), m_banner(makeBanner(parent, QStringLiteral("banner"), QStringLiteral("#f0e442"), 8)),
    // What timed the trace on screen, where that changes how to read it (a run that could not use
    // CUPTI, a recording from before CUPTI timing).
    m_timingBanner(makeBanner(parent, QStringLiteral("timingBanner"), QStringLiteral("#fbe3c4"), 6)),
    m_errorBar(new QWidget(parent)), m_errorText(new QLabel(m_errorBar))
{
    // One line; the runner's own words (the CLI's reason and the CUDA call's error) on demand.
    m_banner->setTextFormat(Qt::RichText);
    connect(m_banner, &QLabel::linkActivated, this, [this] {
        m_bannerDetailsShown = !m_bannerDetailsShown;
        showBanner(m_bannerText, m_bannerDetails);
    });

    m_errorBar->setObjectName(QStringLiteral("errorBar"));
    m_errorBar->setStyleSheet(QStringLiteral("#errorBar { background:#d55e00; border-radius:4px; } "
                                             "#errorBar QLabel { color:#fff; }"));
    m_errorText->setWordWrap(true);
    m_errorText->setTextFormat(Qt::PlainText);
    m_errorText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *dismiss = new QPushButton(tr("Dismiss"), m_errorBar);
    connect(dismiss, &QPushButton::clicked, this, &MessageBars::clearError);
    auto *errorLayout = new QHBoxLayout(m_errorBar);
    errorLayout->setContentsMargins(8, 6, 8, 6);
    errorLayout->addWidget(m_errorText, 1);
    errorLayout->addWidget(dismiss, 0, Qt::AlignTop);
    m_errorBar->hide();
}

void MessageBars::showError(const QString &what, const QString &message, bool fromEditorIssues)
{
    m_lastError = message.isEmpty() ? what : what + QStringLiteral(": ") + message;
    m_errorText->setText(m_lastError);
    m_errorBar->show();
    m_errorFromEditorIssues = fromEditorIssues;
    emit errorShown(what);
}

void MessageBars::clearError()
{
    m_errorFromEditorIssues = false;
    m_errorBar->hide();
}

void MessageBars::editorIssuesChanged(int count)
{
    // "The workload has problems" is over once they are fixed.
    if (count == 0 && m_errorFromEditorIssues)
        clearError();
}

void MessageBars::showBanner(const QString &text, const QString &details)
{
    if (details != m_bannerDetails)
        m_bannerDetailsShown = false;
    m_bannerText = text;
    m_bannerDetails = details;
    QString html = text.toHtmlEscaped();
    if (!details.isEmpty()) {
        html += QStringLiteral(" <a href=\"details\" style=\"color:#000\">%1</a>")
                    .arg(m_bannerDetailsShown ? tr("Hide details") : tr("Details"));
        if (m_bannerDetailsShown)
            html += QStringLiteral("<br>") + details.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    }
    m_banner->setText(html);
    m_banner->setToolTip(details);
    m_banner->setVisible(!text.isEmpty() && !m_bannerSuppressed);
}

void MessageBars::showBannerDetails(bool on)
{
    m_bannerDetailsShown = on && !m_bannerDetails.isEmpty();
    showBanner(m_bannerText, m_bannerDetails);
}

void MessageBars::setBannerSuppressed(bool suppressed)
{
    m_bannerSuppressed = suppressed;
    m_banner->setVisible(!m_bannerText.isEmpty() && !suppressed);
}

QString MessageBars::bannerText() const
{
    if (m_banner->isHidden())
        return {};
    return m_bannerDetailsShown ? m_bannerText + QLatin1Char('\n') + m_bannerDetails : m_bannerText;
}

void MessageBars::setTimingText(const QString &text)
{
    m_timingBanner->setText(text);
    m_timingBanner->setVisible(!text.isEmpty());
}

QString MessageBars::timingBannerText() const
{
    return m_timingBanner->isHidden() ? QString() : m_timingBanner->text();
}

} // namespace streamscope::gui
