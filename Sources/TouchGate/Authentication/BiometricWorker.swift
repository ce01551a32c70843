internal import CPAM
import Glibc

/// The biometric worker: the `touchgate` binary started by ``WorkerCredentialChecker`` to run
/// one PAM transaction of the biometric stack in a process of its own, which the parent can kill.
///
/// A transaction blocked in a module (pam_fprintd waits for a finger up to its timeout, sending
/// only information lines) cannot be interrupted from the thread that runs it; a process can be.
/// The worker holds no terminal and no store: every question of the stack goes to the parent over
/// the socket (``WorkerChannel``), which asks the user and sends the answer back, and so do its
/// information and error lines. It ends with the stack's status, or is killed.
public enum BiometricWorker {
    /// The hidden command that starts a worker: `touchgate __biometric-worker SERVICE USER`.
    public static let command = "__biometric-worker"
    /// The worker's end of the socket pair.
    public static let descriptor: Int32 = 3

    /// Runs the transaction `arguments` (`SERVICE USER`) name, with the configuration directory,
    /// terminal and remote host of the start frame (then the parent's pid), and returns the exit status: 0 once the result
    /// is sent, 64 for bad arguments, 70 when the parent is gone or said something else.
    ///
    /// The corresponding C functions are `pam_start` (or `pam_start_confdir`), `pam_set_item`,
    /// `pam_authenticate` and `pam_end`.
    public static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2 else { return 64 }
        let channel = WorkerChannel(descriptor: descriptor)
        guard let start = channel.receive(), start.kind == .start else { return 70 }
        let fields = WorkerChannel.fields(start.payload)
        // The parent that sent the frame must still be this process's parent: one that died before
        // the parent-death signal was set would leave the worker waiting on a sensor for no one.
        guard fields.count == 4, let parent = Int32(fields[3]), getppid() == parent else { return 70 }
        let (service, user) = (arguments[0], arguments[1])
        let (directory, terminal, remoteHost) = (fields[0], fields[1], fields[2])
        let relay = Relay(channel: channel)
        let retained = Unmanaged.passRetained(relay)
        defer { retained.release() }
        var conversation = pam_conv(conv: relayFunction, appdata_ptr: retained.toOpaque())
        var handle: OpaquePointer?
        var status = directory.isEmpty
            ? pam_start(service, user, &conversation, &handle)
            : pam_start_confdir(service, user, &conversation, directory, &handle)
        var report: [UInt8]
        if status == PAM_SUCCESS, let handle {
            if !terminal.isEmpty { pam_set_item(handle, PAM_TTY, terminal) }
            if !remoteHost.isEmpty { pam_set_item(handle, PAM_RHOST, remoteHost) }
            status = pam_authenticate(handle, Int32(PAM_DISALLOW_NULL_AUTHTOK))
            pam_end(handle, status)
            report = [1]
        } else {
            report = [0]
        }
        let value = UInt32(bitPattern: status)
        report += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        return channel.send(.result, report) ? 0 : 70
    }

    /// The worker's conversation: relays each message to the parent.
    final class Relay {
        let channel: WorkerChannel
        init(channel: WorkerChannel) { self.channel = channel }
    }
}

/// The worker's C conversation function: each question goes to the parent, whose answer (or
/// stop) comes back; information and error lines are only passed on.
private let relayFunction: @convention(c) (
    Int32,
    UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
    UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
    UnsafeMutableRawPointer?
) -> Int32 = { count, messages, responses, appdata in
    guard let appdata else { return PAM_CONV_ERR }
    let relay = Unmanaged<BiometricWorker.Relay>.fromOpaque(appdata).takeUnretainedValue()
    return converse(count, messages, responses) { message in
        let style = message.msg_style
        guard style == PAM_PROMPT_ECHO_OFF || style == PAM_PROMPT_ECHO_ON || style == PAM_ERROR_MSG
            || style == PAM_TEXT_INFO else { return .stop }
        // The parent sanitizes the text; only its length is bounded here.
        var frame: [UInt8] = [UInt8(style)]
        if let text = message.msg {
            frame += UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                         count: min(strlen(text), 4096))
        }
        guard relay.channel.send(.message, frame) else { return .stop }
        guard style == PAM_PROMPT_ECHO_OFF || style == PAM_PROMPT_ECHO_ON else { return .nothing }
        guard var answer = relay.channel.receive() else { return .stop }
        guard answer.kind == .answer, answer.payload.count <= PAM_MAX_RESP_SIZE, !answer.payload.contains(0) else {
            wipe(&answer.payload)
            return .stop
        }
        // The only copy: `converse` wipes it once PAM has its own.
        return .answer(answer.payload)
    }
}
