import CVTerm
import Glibc
import TouchGateSystem

/// The screen of the program `touchgate shell` runs, kept by libvterm (the emulator neovim's
/// terminal uses) from every byte the program writes, shown or not; the plain lines of a long
/// output that would only scroll through the screen go to the scrollback without it, with the
/// same result (``feedRun(_:fed:)``).
///
/// After an unlock the owner draws it back: what the terminal would show now had the program's
/// output reached it meanwhile (the cells with their attributes and colours, the cursor, the
/// alternate screen), not what it showed when the lock came. libvterm rather than a home-made
/// parser: it is the kept library for this, in Debian, and follows xterm's sequences.
final class InnerScreen {
    private let terminal: OpaquePointer
    private let screen: OpaquePointer
    private(set) var rows: Int32
    private(set) var columns: Int32
    /// The properties the drawing needs, set through libvterm's callback.
    fileprivate var alternateScreen = false
    fileprivate var cursorVisible = true
    /// Bytes libvterm answers the program with (a cursor position report, a device attribute):
    /// passed to the program only while the outer terminal cannot answer (covered).
    fileprivate var answers: [UInt8] = []
    /// The last lines that left the top of the main screen (their cells), oldest first: the
    /// cover clears the terminal's own scrollback (nothing of the session can be scrolled back
    /// to while locked), so after the unlock these are written back into it before the screen
    /// is drawn, the lines scrolled off while covered included. At most ``scrollbackLimit``.
    /// Touched by the feeding thread only while it feeds; read by the loop after ``settle()``.
    private var scrollback: [ScrollbackLine] = []
    private var scrollbackStart = 0
    static let scrollbackLimit = 1000
    private var callbacks = VTermScreenCallbacks()

    // The plain-line shortcut (``feedNow(_:)``), touched only by whoever feeds.
    /// Off only where a test compares it with feeding libvterm every byte.
    let plainLineShortcut: Bool
    private var characterSets = CharacterSetTracker()
    /// How many lines libvterm pushed off its screen, and the width of the last.
    private var pushes = 0
    private var lastPushWidth: Int32 = 0
    /// Lines the shortcut kept without feeding them to libvterm (what the tests check it did).
    private(set) var skippedLines = 0
    /// The run of plain lines being collected: where each starts and where its text ends (its CR).
    private var runStarts: [Int] = []
    private var runEnds: [Int] = []
    /// At most this many lines of a run are fed and checked before it is given up on.
    static let checkedLinesLimit = 8

    // The feed: bytes shown on the outer terminal reach libvterm on a thread of its own, so
    // the relay to the outer terminal never waits for the emulator. Everything else (bytes
    // while covered, a resize, the drawing) first waits until the thread has fed every byte
    // queued before it (``settle()``), so libvterm sees the bytes in the program's order and
    // the model is exact whenever it is read.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`: bytes waiting for the thread, whether it is feeding a batch, the end.
    private var queue: [UInt8] = []
    private var feeding = false
    private var stopping = false
    /// Set by ``settle()``: the thread feeds what is queued without waiting for more.
    private var hurry = false
    /// Guarded by `mutex`: the loop waits for room (``hasRoom``); the thread then writes to `wake`.
    private var wantsRoom = false
    private var thread = pthread_t()
    private var threadStarted = false
    /// A pipe's read end, which the thread writes to when the queue, once full, has room again.
    let wake: Int32
    private let wakeWrite: Int32
    /// At most this many bytes wait for the thread; then the loop stops reading the program
    /// (the program's pseudo-terminal holds the rest) until ``wake`` says there is room.
    static let queueLimit = 256 * 1024
    /// A batch smaller than this waits up to ``gatherNanoseconds`` for more output first: each
    /// batch with a long run of plain lines feeds libvterm two checked lines and a screenful
    /// (``feedRun(_:fed:)``), so larger batches leave more out. Only the model waits: the relay
    /// to the terminal has already written the bytes.
    static let batchTarget = 128 * 1024
    static let gatherNanoseconds = 5_000_000

    init(rows: Int32, columns: Int32, plainLineShortcut: Bool = true) {
        self.plainLineShortcut = plainLineShortcut
        self.rows = max(rows, 1)
        self.columns = max(columns, 1)
        terminal = vterm_new(self.rows, self.columns)
        vterm_set_utf8(terminal, 1)
        screen = vterm_obtain_screen(terminal)
        let pipe = try? SelfPipe()
        (wake, wakeWrite) = (pipe?.readEnd ?? -1, pipe?.writeEnd ?? -1)
        pthread_mutex_init(mutex, nil)
        // Its timed wait (``feedLoop()``) on the monotonic clock, which a change of the time does not move.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attributes)
        pthread_condattr_destroy(&attributes)
        callbacks.settermprop = { property, value, user in
            guard let user, let value else { return 1 }
            let owner = Unmanaged<InnerScreen>.fromOpaque(user).takeUnretainedValue()
            switch property {
            case VTERM_PROP_ALTSCREEN: owner.alternateScreen = value.pointee.boolean != 0
            case VTERM_PROP_CURSORVISIBLE: owner.cursorVisible = value.pointee.boolean != 0
            default: break
            }
            return 1
        }
        callbacks.sb_pushline = { count, cells, user in
            guard let user, let cells else { return 1 }
            Unmanaged<InnerScreen>.fromOpaque(user).takeUnretainedValue().keep(UnsafeBufferPointer(start: cells, count: Int(count)))
            return 1
        }
        vterm_screen_set_callbacks(screen, &callbacks, Unmanaged.passUnretained(self).toOpaque())
        vterm_output_set_callback(terminal, { bytes, count, user in
            guard let user, let bytes else { return }
            let owner = Unmanaged<InnerScreen>.fromOpaque(user).takeUnretainedValue()
            owner.answers += UnsafeRawBufferPointer(start: bytes, count: count)
        }, Unmanaged.passUnretained(self).toOpaque())
        vterm_screen_enable_altscreen(screen, 1)
        vterm_screen_reset(screen, 1)
        threadStarted = wake >= 0 && pthread_create(&thread, nil, { user in
            Unmanaged<InnerScreen>.fromOpaque(user!).takeUnretainedValue().feedLoop()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque()) == 0
    }

    deinit {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(mutex)
        if threadStarted { pthread_join(thread, nil) }
        vterm_free(terminal)
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        changed.deallocate()
        if wake >= 0 { close(wake); close(wakeWrite) }
    }

    /// The thread: feeds libvterm every batch the loop queued, in order.
    private func feedLoop() {
        // Every signal goes to the loop's thread (its handlers only write to the signal pipe).
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        var batch: [UInt8] = []
        pthread_mutex_lock(mutex)
        while true {
            while queue.isEmpty && !stopping { pthread_cond_wait(changed, mutex) }
            if queue.isEmpty { break }
            if queue.count < Self.batchTarget {
                var deadline = timespec()
                clock_gettime(CLOCK_MONOTONIC, &deadline)
                deadline.tv_nsec += Self.gatherNanoseconds
                if deadline.tv_nsec >= 1_000_000_000 {
                    deadline.tv_sec += 1
                    deadline.tv_nsec -= 1_000_000_000
                }
                while queue.count < Self.batchTarget, !stopping, !hurry, !wantsRoom,
                      pthread_cond_timedwait(changed, mutex, &deadline) == 0 {}
            }
            swap(&batch, &queue)
            feeding = true
            let signalRoom = wantsRoom
            wantsRoom = false
            pthread_mutex_unlock(mutex)
            if signalRoom {
                var one: UInt8 = 1
                _ = Glibc.write(wakeWrite, &one, 1)
            }
            batch.withUnsafeBytes { feedNow($0) }
            // Shown bytes: the outer terminal answers the program's questions itself.
            answers.removeAll(keepingCapacity: true)
            batch.removeAll(keepingCapacity: true)
            pthread_mutex_lock(mutex)
            feeding = false
            pthread_cond_broadcast(changed)
        }
        pthread_mutex_unlock(mutex)
    }

    /// Feeds libvterm `bytes`, leaving out the plain lines of a long run that would only scroll
    /// through the screen (``feedRun(_:fed:)``).
    private func feedNow(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count > 0 else { return }
        guard plainLineShortcut, rows >= 2, columns >= 2 else { return write(bytes, from: 0, to: count) }
        // A plain line: printable ASCII, shorter than the screen is wide, then CR LF (as a
        // terminal's output processing turns a program's LF).
        let longest = Int(columns) - 1
        var fed = 0
        var position = 0
        runStarts.removeAll(keepingCapacity: true)
        runEnds.removeAll(keepingCapacity: true)
        while position < count {
            var end = position
            while end < count, end - position <= longest, bytes[end] >= 0x20, bytes[end] <= 0x7E { end += 1 }
            if end - position <= longest, end + 1 < count, bytes[end] == 0x0D, bytes[end + 1] == 0x0A {
                runStarts.append(position)
                runEnds.append(end)
                position = end + 2
                continue
            }
            // Not one: the run ends; what follows up to the next line feed goes to libvterm as it is.
            fed = feedRun(bytes, fed: fed)
            while position < count, bytes[position] != 0x0A { position += 1 }
            position = min(position + 1, count)
        }
        fed = feedRun(bytes, fed: fed)
        write(bytes, from: fed, to: count)
    }

    /// Feeds the run of plain lines collected (from `fed` on, what is not fed yet), leaving out
    /// the lines that would only have passed through the screen; returns how far it fed.
    ///
    /// Its first lines go to libvterm one by one until one is shown to be drawn as plain text on
    /// a fresh bottom row (``plainLineStyle(of:)``); the last screenful goes to libvterm too. The
    /// lines in between are not fed: each would have been written on a fresh bottom row and
    /// scrolled off the top, so each goes straight to the scrollback as the checked line's cells
    /// with its own characters. libvterm, fed the last screenful, pushes off what its screen holds
    /// now, which is what the first of the left-out lines would have pushed; then come the
    /// left-out lines, in order. The screen, the cursor and the scrollback end as if libvterm had
    /// been fed every byte: what decides how libvterm draws and scrolls a plain line is the pen
    /// (no plain line changes it), the scroll region and margins (the check saw the line scroll
    /// the whole screen, pushing a line of the full width), the line's width mode (the fresh row's
    /// is checked), the character sets (``CharacterSetTracker``) and the parser's state (the
    /// checked line was printed, and printable bytes, CR and LF leave it printing).
    private func feedRun(_ bytes: UnsafeRawBufferPointer, fed: Int) -> Int {
        defer {
            runStarts.removeAll(keepingCapacity: true)
            runEnds.removeAll(keepingCapacity: true)
        }
        let lines = runStarts.count
        let screenful = Int(rows) - 1
        // Worth it only if a line is left out after two checked lines and the last screenful.
        guard lines >= screenful + 3 else { return fed }
        var fed = fed
        write(bytes, from: fed, to: runStarts[0])
        fed = runStarts[0]
        var onFreshRow = false
        var style: PlainLineStyle?
        var index = 0
        while style == nil, index < lines - screenful - 1, index < Self.checkedLinesLimit {
            let before = pushes
            let next = runEnds[index] + 2
            write(bytes, from: fed, to: next)
            fed = next
            let scrolled = scrolledOnce(since: before)
            if scrolled, onFreshRow, runEnds[index] > runStarts[index] {
                style = plainLineStyle(of: UnsafeRawBufferPointer(rebasing: bytes[runStarts[index]..<runEnds[index]]))
            }
            onFreshRow = scrolled
            index += 1
        }
        guard let style, characterSets.plain, !alternateScreen else { return fed }
        let leftOut = index..<(lines - screenful)
        guard !leftOut.isEmpty else { return fed }
        let end = runEnds[lines - 1] + 2
        write(bytes, from: runStarts[leftOut.upperBound], to: end)
        for line in leftOut.suffix(Self.scrollbackLimit) {
            keep(.plain(text: Array(bytes[runStarts[line]..<runEnds[line]]), style: style))
        }
        skippedLines += leftOut.count
        return end
    }

    /// Whether the line just fed scrolled the whole screen by one line (one push of the full
    /// width) and left the cursor at the start of the bottom row.
    private func scrolledOnce(since before: Int) -> Bool {
        guard pushes == before + 1, lastPushWidth == columns, !alternateScreen else { return false }
        var cursor = VTermPos()
        vterm_state_get_cursorpos(vterm_obtain_state(terminal), &cursor)
        return cursor.row == rows - 1 && cursor.col == 0
    }

    /// How libvterm drew `text`, the line just fed, written on a fresh bottom row that then
    /// scrolled up one: its cells read back must be one character cell (the characters aside)
    /// and blanks like the new bottom row's, on rows of single width; nil when they are not.
    private func plainLineStyle(of text: UnsafeRawBufferPointer) -> PlainLineStyle? {
        guard characterSets.plain, let first = text.first else { return nil }
        let state = vterm_obtain_state(terminal)
        guard let fresh = vterm_state_get_lineinfo(state, rows - 1),
              fresh.pointee.doublewidth == 0, fresh.pointee.doubleheight == 0 else { return nil }
        var written = VTermScreenCell()
        var blank = VTermScreenCell()
        guard vterm_screen_get_cell(screen, VTermPos(row: rows - 2, col: 0), &written) != 0,
              vterm_screen_get_cell(screen, VTermPos(row: rows - 1, col: 0), &blank) != 0 else { return nil }
        guard Self.isSingle(written, character: UInt32(first)), Self.isSingle(blank, character: 0) else { return nil }
        var cell = VTermScreenCell()
        var expected = written
        for column in 0..<columns {
            guard vterm_screen_get_cell(screen, VTermPos(row: rows - 2, col: column), &cell) != 0 else { return nil }
            if Int(column) < text.count {
                expected = written
                expected.chars.0 = UInt32(text[Int(column)])
            } else {
                expected = blank
            }
            guard Self.same(cell, expected) else { return nil }
        }
        return PlainLineStyle(written: written, blank: blank, columns: Int(columns))
    }

    /// A cell of width 1 on a single-width row holding `character` alone (0: none).
    private static func isSingle(_ cell: VTermScreenCell, character: UInt32) -> Bool {
        let chars = cell.chars
        return chars.0 == character && chars.1 == 0 && chars.2 == 0 && chars.3 == 0 && chars.4 == 0 && chars.5 == 0
            && cell.width == 1 && cell.attrs.dwl == 0 && cell.attrs.dhl == 0
    }

    /// Whether two cells are the same: characters, width, attributes and colours.
    static func same(_ a: VTermScreenCell, _ b: VTermScreenCell) -> Bool {
        let (x, y) = (a.chars, b.chars)
        guard x.0 == y.0, x.1 == y.1, x.2 == y.2, x.3 == y.3, x.4 == y.4, x.5 == y.5, a.width == b.width else { return false }
        let (p, q) = (a.attrs, b.attrs)
        guard p.bold == q.bold, p.underline == q.underline, p.italic == q.italic, p.blink == q.blink,
              p.reverse == q.reverse, p.strike == q.strike, p.font == q.font, p.dwl == q.dwl, p.dhl == q.dhl
        else { return false }
        return same(a.fg, b.fg) && same(a.bg, b.bg)
    }

    private static func same(_ a: VTermColor, _ b: VTermColor) -> Bool {
        guard a.type == b.type else { return false }
        if a.type & UInt8(VTERM_COLOR_TYPE_MASK.rawValue) == UInt8(VTERM_COLOR_INDEXED.rawValue) {
            return a.indexed.idx == b.indexed.idx
        }
        return a.rgb.red == b.rgb.red && a.rgb.green == b.rgb.green && a.rgb.blue == b.rgb.blue
    }

    /// Feeds libvterm `bytes[start..<end]`, which the character-set tracker follows too.
    private func write(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        guard end > start, let base = bytes.baseAddress else { return }
        let part = UnsafeRawBufferPointer(start: base + start, count: end - start)
        var tracker = characterSets
        tracker.track(part)
        characterSets = tracker
        _ = vterm_input_write(terminal, part.baseAddress!.assumingMemoryBound(to: CChar.self), part.count)
    }

    /// Waits until the thread has fed everything queued: libvterm is then the loop's alone
    /// until the next ``show(_:)``.
    private func settle() {
        pthread_mutex_lock(mutex)
        hurry = true
        pthread_cond_broadcast(changed)
        while !queue.isEmpty || feeding { pthread_cond_wait(changed, mutex) }
        hurry = false
        pthread_mutex_unlock(mutex)
    }

    /// Whether ``show(_:)`` may queue more now; when not, ``wake`` becomes readable once it may.
    var hasRoom: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard threadStarted, queue.count >= Self.queueLimit else { return true }
        wantsRoom = true
        return false
    }

    /// Empties ``wake`` (after it was readable).
    func clearWake() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while Glibc.read(wake, &bytes, bytes.count) > 0 {}
    }

    /// Feeds bytes the outer terminal shows: queued for the thread (fed here when it could not start).
    func show(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard threadStarted else { return feedNow(bytes) }
        pthread_mutex_lock(mutex)
        let before = queue.count
        queue += bytes
        // The thread waits for a first byte, or gathers until a batch is large enough.
        if before == 0 || (before < Self.batchTarget && queue.count >= Self.batchTarget) { pthread_cond_signal(changed) }
        pthread_mutex_unlock(mutex)
    }

    /// Feeds bytes written while covered, after every byte before them; returns libvterm's
    /// answers to the program's questions in them.
    func record(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        settle()
        answers.removeAll()
        feedNow(bytes)
        defer { answers.removeAll() }
        return answers
    }

    /// Keeps a line libvterm pushed off its screen.
    private func keep(_ cells: UnsafeBufferPointer<VTermScreenCell>) {
        pushes += 1
        lastPushWidth = Int32(cells.count)
        keep(.cells(Array(cells)))
    }

    /// Keeps a line that left the screen (a ring of ``scrollbackLimit`` lines).
    private func keep(_ line: ScrollbackLine) {
        if scrollback.count < Self.scrollbackLimit {
            scrollback.append(line)
        } else {
            scrollback[scrollbackStart] = line
            scrollbackStart = (scrollbackStart + 1) % Self.scrollbackLimit
        }
    }

    /// The bytes that put the kept lines into the terminal's scrollback, oldest first (on its
    /// main screen): each is drawn on the top row, which a line feed at the bottom row then
    /// scrolls off, as it left the program's screen. Empty when none.
    func scrollbackSequence() -> [UInt8] {
        settle()
        guard !scrollback.isEmpty else { return [] }
        var out = Array("\u{1B}[?1049l\u{1B}[0m".utf8)
        for index in 0..<scrollback.count {
            out += Array("\u{1B}[1;1H\u{1B}[2K".utf8)
            out += drawn(scrollback[(scrollbackStart + index) % scrollback.count].cells)
            out += Array("\u{1B}[\(rows);1H\n".utf8)
        }
        return out
    }

    /// A line's cells with their attributes, blank cells with none at its end left out (as a
    /// terminal copies it), the attributes reset after it.
    private func drawn(_ cells: [VTermScreenCell]) -> [UInt8] {
        var line: [UInt8] = []
        var current = ""
        var lastText = 0
        var column = 0
        while column < cells.count {
            let cell = cells[column]
            let attributes = sgr(cell)
            if attributes != current {
                line += Array(attributes.utf8)
                current = attributes
            }
            appendCharacters(of: cell, to: &line)
            if cell.chars.0 != 0 || attributes != "\u{1B}[0m" { lastText = line.count }
            column += max(1, Int(cell.width))
        }
        line.removeSubrange(lastText...)
        return line + Array("\u{1B}[0m".utf8)
    }

    /// The screen's cells, row by row (what the tests compare).
    func screenCells() -> [[VTermScreenCell]] {
        settle()
        var cell = VTermScreenCell()
        return (0..<rows).map { row in
            (0..<columns).map { column in
                _ = vterm_screen_get_cell(screen, VTermPos(row: row, col: column), &cell)
                return cell
            }
        }
    }

    /// The kept lines' cells, oldest first (what the tests compare).
    func scrollbackCells() -> [[VTermScreenCell]] {
        settle()
        return (0..<scrollback.count).map { scrollback[(scrollbackStart + $0) % scrollback.count].cells }
    }

    func resize(rows: Int32, columns: Int32) {
        settle()
        self.rows = max(rows, 1)
        self.columns = max(columns, 1)
        vterm_set_size(terminal, self.rows, self.columns)
    }

    /// The bytes that draw the screen on a terminal of the same size: the main or alternate
    /// screen as the program has it, every cell with its attributes, then the cursor.
    func redrawSequence() -> [UInt8] {
        settle()
        var out: [UInt8] = []
        out.reserveCapacity(Int(rows * columns) + 64)
        func append(_ text: String) { out += Array(text.utf8) }
        // The alternate screen as the program has it (the gate's cover may have left either one).
        append(alternateScreen ? "\u{1B}[?1049h" : "\u{1B}[?1049l")
        append("\u{1B}[0m\u{1B}[H\u{1B}[2J")
        var current = ""
        var cell = VTermScreenCell()
        for row in 0..<rows {
            append("\u{1B}[\(row + 1);1H")
            var column: Int32 = 0
            while column < columns {
                guard vterm_screen_get_cell(screen, VTermPos(row: row, col: column), &cell) != 0 else { break }
                let attributes = sgr(cell)
                if attributes != current {
                    append(attributes)
                    current = attributes
                }
                appendCharacters(of: cell, to: &out)
                column += max(1, Int32(cell.width))
            }
        }
        append("\u{1B}[0m")
        var cursor = VTermPos()
        vterm_state_get_cursorpos(vterm_obtain_state(terminal), &cursor)
        append("\u{1B}[\(cursor.row + 1);\(cursor.col + 1)H")
        append(cursorVisible ? "\u{1B}[?25h" : "\u{1B}[?25l")
        return out
    }

    /// Appends a cell's characters (a space when it has none).
    private func appendCharacters(of cell: VTermScreenCell, to out: inout [UInt8]) {
        let characters = withUnsafeBytes(of: cell.chars) { Array($0.bindMemory(to: UInt32.self)) }
        if characters[0] == 0 {
            out.append(0x20)
        } else {
            for scalar in characters.prefix(while: { $0 != 0 }) {
                if let value = Unicode.Scalar(scalar) { out += Array(String(Character(value)).utf8) }
            }
        }
    }

    /// The SGR sequence of a cell's attributes and colours.
    private func sgr(_ cell: VTermScreenCell) -> String {
        var codes = ["0"]
        if cell.attrs.bold != 0 { codes.append("1") }
        if cell.attrs.italic != 0 { codes.append("3") }
        switch cell.attrs.underline {
        case 0: break
        case 2: codes.append("21")
        default: codes.append("4")
        }
        if cell.attrs.blink != 0 { codes.append("5") }
        if cell.attrs.reverse != 0 { codes.append("7") }
        if cell.attrs.strike != 0 { codes.append("9") }
        if let foreground = colour(cell.fg, foreground: true) { codes.append(foreground) }
        if let background = colour(cell.bg, foreground: false) { codes.append(background) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func colour(_ colour: VTermColor, foreground: Bool) -> String? {
        let type = colour.type
        if type & UInt8(foreground ? VTERM_COLOR_DEFAULT_FG.rawValue : VTERM_COLOR_DEFAULT_BG.rawValue) != 0 { return nil }
        if type & UInt8(VTERM_COLOR_TYPE_MASK.rawValue) == UInt8(VTERM_COLOR_INDEXED.rawValue) {
            let index = Int(colour.indexed.idx)
            switch index {
            case 0..<8: return "\((foreground ? 30 : 40) + index)"
            case 8..<16: return "\((foreground ? 90 : 100) + index - 8)"
            default: return "\(foreground ? 38 : 48);5;\(index)"
            }
        }
        return "\(foreground ? 38 : 48);2;\(colour.rgb.red);\(colour.rgb.green);\(colour.rgb.blue)"
    }
}
