/// The keys of a referenced table known to exist, the most recently used kept within a bound:
/// what spares a look-up query for every alert that names a device already seen.
///
/// Two generations approximate least-recently-used at the cost of a set look-up: keys are added
/// to the recent one; a key found in the older one moves to the recent one; when the recent one
/// holds `generationLimit` keys it becomes the older one and the previous older one goes. So a
/// key used within the last generation is always kept, the cache never holds more than twice the
/// limit, and — unlike a cache emptied whole when full — a working set that fits in a generation
/// (100k devices named by 1M alerts) is looked up once.
struct KeyCache {
  private var recent = Set<DatabaseValue>()
  private var older = Set<DatabaseValue>()
  /// Keys a generation holds before it ages.
  let generationLimit: Int

  init(generationLimit: Int) {
    precondition(generationLimit > 0, "a key cache holds at least one key")
    self.generationLimit = generationLimit
  }

  /// Keys held, both generations.
  var count: Int { recent.count + older.count }

  /// Whether `key` is known; a key found in the older generation becomes recent.
  mutating func contains(_ key: DatabaseValue) -> Bool {
    if recent.contains(key) { return true }
    guard older.remove(key) != nil else { return false }
    insert(key)
    return true
  }

  mutating func insert(_ key: DatabaseValue) {
    guard recent.insert(key).inserted, recent.count >= generationLimit else { return }
    older = recent
    // Sized for a whole generation at once: grown by doubling, the set would hold its old and
    // its new table at once, each time, beside the older generation.
    recent = Set(minimumCapacity: generationLimit)
  }

  /// Keys the two generations have room for without growing: what the cache's memory is sized by.
  var capacity: Int { recent.capacity + older.capacity }

  mutating func removeAll() {
    recent.removeAll()
    older.removeAll()
  }
}
