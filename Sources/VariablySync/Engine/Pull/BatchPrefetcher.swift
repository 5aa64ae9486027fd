/// Batches fetched and decoded ahead of the writer, at most `capacity` records of them: the
/// network and the JSON decoding of the next batch run on one core while SQLite applies this one
/// on the other. The producer waits while the buffer is full; the consumer while it is empty.
actor BatchPrefetcher<Page: Sendable> {
    private var pages: [(page: Page, records: Int)] = []
    private var buffered = 0
    private var end: Result<Void, any Error>?
    private var isClosed = false
    private var consumer: CheckedContinuation<Void, Never>?
    private var producer: CheckedContinuation<Void, Never>?
    private let capacity: Int

    /// A buffer of at most `capacity` records (one page more when a page alone is larger).
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Adds a page of `records` records; waits while the buffer is full. Returns `false` once the
    /// consumer is gone: the producer stops.
    func put(_ page: Page, records: Int) async -> Bool {
        guard !isClosed else { return false }
        pages.append((page, records))
        buffered += records
        wakeConsumer()
        while buffered >= capacity, !isClosed {
            await withCheckedContinuation { producer = $0 }
        }
        return !isClosed
    }

    /// Ends the stream of pages: normally (`.success`) or with the producer's error.
    func finish(_ result: Result<Void, any Error>) {
        end = result
        wakeConsumer()
    }

    /// The next page, `nil` after the last; throws the producer's error once the pages before it are taken.
    func next() async throws -> Page? {
        while true {
            if !pages.isEmpty {
                let (page, records) = pages.removeFirst()
                buffered -= records
                if buffered < capacity, let waiting = producer {
                    producer = nil
                    waiting.resume()
                }
                return page
            }
            if let end {
                try end.get()
                return nil
            }
            await withCheckedContinuation { consumer = $0 }
        }
    }

    /// The consumer is done (finished, failed or cancelled): a waiting producer is released and stops.
    func close() {
        isClosed = true
        pages.removeAll()
        if let waiting = producer {
            producer = nil
            waiting.resume()
        }
    }

    private func wakeConsumer() {
        if let waiting = consumer {
            consumer = nil
            waiting.resume()
        }
    }
}
