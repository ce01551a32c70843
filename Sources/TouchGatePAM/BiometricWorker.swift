internal import CPAM
import Glibc
import TouchGateCore

/// The biometric worker: the `touchgate` binary started by ``WorkerCredentialChecker`` to run
/// one PAM transaction of the biometric stack in a process of its own, which the parent can kill.
///
/// A transaction blocked in a module (pam_fprintd waits for a finger up to its timeout, sending
/// only information lines) cannot be interrupted from the thread that runs it; a process can be.
/// The worker holds no terminal and no store: every question of the stack goes to the parent over
/// the socket (``WorkerChannel``), which asks the user and sends the answer back, and so do its
/// information and error lines. It ends with the stack's status, or is killed.
package enum BiometricWorker {
    /// The hidden command that starts a worker: `touchgate __biometric-worker SERVICE USER`.
    package static let command = "__biometric-worker"
    /// The worker's end of the socket pair.
    package static let descriptor: Int32 = 3

    /// Runs the transaction `arguments` (`SERVICE USER`) name, with the configuration directory,
    /// terminal and remote host of the start frame (then the parent's pid), and returns the exit status: 0 once the result
    /// is sent, 64 for bad arguments, 70 when the parent is gone or said something else.
    /// The transaction is a ``PAMTransaction``, as in process.
    package static func run(_ arguments: [String]) -> ExitCode {
        guard arguments.count == 2 else { return .usage }
        let channel = WorkerChannel(descriptor: descriptor)
        guard let start = channel.receive(), start.kind == .start else { return .internalError }
        let fields = WorkerChannel.fields(start.publicBytes)
        // The parent that sent the frame must still be this process's parent: one that died before
        // the parent-death signal was set would leave the worker waiting on a sensor for no one.
        guard fields.count == 4, let parent = Int32(fields[3]), getppid() == parent else { return .internalError }
        let (service, user) = (arguments[0], arguments[1])
        let (directory, terminal, remoteHost) = (fields[0], fields[1], fields[2])
        let relay = Relay(channel: channel)
        let retained = Unmanaged.passRetained(relay)
        defer { retained.release() }
        let transaction = PAMTransaction(
            service: service, user: user, configurationDirectory: directory.isEmpty ? nil : directory,
            terminal: terminal.isEmpty ? nil : terminal, remoteHost: remoteHost.isEmpty ? nil : remoteHost)
        let end = transaction.authenticate(conversation: relayFunction, appdata: retained.toOpaque())
        return channel.send(.result, WorkerChannel.resultPayload(end)) ? .success : .internalError
    }

    /// The worker's conversation: relays each message to the parent.
    final class Relay {
        let channel: WorkerChannel
        init(channel: WorkerChannel) { self.channel = channel }
    }
}

/// The worker's C conversation function: each question goes to the parent, whose answer (or
/// stop) comes back; information and error lines are only passed on.
private let relayFunction: PAMTransaction.ConversationFunction = { count, messages, responses, appdata in
    guard let appdata else { return PAM_CONV_ERR }
    let relay = Unmanaged<BiometricWorker.Relay>.fromOpaque(appdata).takeUnretainedValue()
    return converse(count, messages, responses) { message in
        let style = PAMMessageStyle(pamStyle: message.msg_style)
        // The parent sanitizes the text; only its length is bounded here.
        let text = message.msg.map {
            UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: min(strlen($0), 4096))
        }
        guard let frame = WorkerChannel.messagePayload(style: style, text: text ?? UnsafeBufferPointer(start: nil, count: 0)),
              relay.channel.send(.message, frame) else { return .stop }
        guard case .question = style else { return .nothing }
        guard let answer = relay.channel.receive() else { return .stop }
        guard answer.kind == .answer, answer.payload.count <= PAM_MAX_RESP_SIZE, !answer.payload.contains(0) else { return .stop }
        // Moved on: `converse` copies it into PAM's response, and it wipes itself then.
        return .answer(answer.takePayload())
    }
}
