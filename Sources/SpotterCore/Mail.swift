/// The e-mails Spotter sends, written to the outbox.
public enum Mail {
    /// "`lead` this link: … or " before the code, or nothing when there is no portal to open a
    /// link in (`publicURL` empty: the portal is off and no public address is set).
    static func link(_ lead: String, _ page: String, _ token: String, _ publicURL: String) -> String {
        publicURL.isEmpty ? "" : "\(lead) this link:\n\(publicURL)/\(page)?token=\(token)\n\nor "
    }

    /// What works once: the link, or the code alone without one.
    static func once(_ publicURL: String) -> String { publicURL.isEmpty ? "The code" : "The link" }

    /// The message with the e-mail verification link.
    public static func verification(to recipient: String, username: String, token: String, publicURL: String)
        -> OutboxMessage
    {
        OutboxMessage(
            kind: "verify_email",
            recipient: recipient,
            subject: "Confirm your Spotter e-mail address",
            body: """
                Hi \(username),

                please confirm your e-mail address \(link("by opening", "verify-email", token, publicURL))by entering this code in the app: \(token)

                \(once(publicURL)) works once and expires in 48 hours. If you did not create a Spotter account,
                ignore this message.
                """
        )
    }

    /// The link that makes a new address the account's (`AuthService.changeEmail`).
    public static func emailChange(to recipient: String, username: String, token: String, publicURL: String)
        -> OutboxMessage
    {
        OutboxMessage(
            kind: "change_email",
            recipient: recipient,
            subject: "Confirm your new Spotter e-mail address",
            body: """
                Hi \(username),

                to make this your Spotter account's e-mail address, \(link("open", "verify-email", token, publicURL))enter this code in the app: \(token)

                Until then your account keeps its old address. \(once(publicURL)) works once and expires in
                48 hours. If you did not ask for this, ignore this message.
                """
        )
    }

    /// Tells the current address that a change to `newEmail` was asked for.
    public static func emailChangeNotice(to recipient: String, username: String, newEmail: String) -> OutboxMessage {
        OutboxMessage(
            kind: "change_email_notice",
            recipient: recipient,
            subject: "Your Spotter e-mail address is being changed",
            body: """
                Hi \(username),

                someone signed in to your Spotter account asked to change its e-mail address to
                \(newEmail). It changes when the link sent there is opened.

                If that was you, there is nothing to do. If not, change your password now: while
                the link is unopened, a new password cancels the change and signs out every other
                device.
                """
        )
    }

    /// Tells the old address that the account's address is now `newEmail`.
    @Sendable
    public static func emailChanged(to recipient: String, username: String, newEmail: String) -> OutboxMessage {
        OutboxMessage(
            kind: "email_changed",
            recipient: recipient,
            subject: "Your Spotter e-mail address was changed",
            body: """
                Hi \(username),

                your Spotter account's e-mail address is now \(newEmail); this address no longer
                signs in or receives its messages, and password reset links sent here no longer work.

                If you did not make this change, someone signed in to your account made it: answer
                this e-mail, and Spotter's operators will help you get the account back.
                """
        )
    }

    /// The message with the password reset link.
    public static func passwordReset(to recipient: String, token: String, publicURL: String) -> OutboxMessage {
        OutboxMessage(
            kind: "reset_password",
            recipient: recipient,
            subject: "Reset your Spotter password",
            body: """
                Someone asked to reset the password of the Spotter account for this address.
                To choose a new password, \(link("open", "reset-password", token, publicURL))enter this code in the app: \(token)

                \(once(publicURL)) works once and expires in one hour. Resetting signs out every device.
                If you did not ask for this, ignore this message: your password stays as it is.
                """
        )
    }
}
