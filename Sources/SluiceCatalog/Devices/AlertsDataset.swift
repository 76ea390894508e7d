@_spi(Internals) import SluiceCore

/// The alerts feed (seed 000) → `alerts`, each linked to its device by `deviceId`. The device
/// must exist — loaded by an earlier run, or by an earlier input of the same pipeline
/// (`Pipelines/devices.json` lists the devices feed first); an alert naming an unknown device is
/// an `orphanReference` at `deviceId`: a strict run fails and writes nothing, a lenient one skips
/// and reports the alert.
public struct AlertsDataset: Dataset {
  public init() {}

  public var name: String { "alerts" }
  public var summary: String { "alerts naming their device by deviceId → alerts (an unknown device is an orphan)" }

  /// The alerts and the devices they name: a run of alerts alone checks its devices in the table.
  public var schema: Schema { Self.schema }
  static let schema = Schema([Devices.devices, Devices.alerts])

  static let idNotBlank = ValidationRule(
    "alert ids are not blank", message: "must not be blank", constraints: [.notBlank(at: "id")])
  static let expiresAfterCreation = ValidationRule(
    "alerts expire after they are created", message: "must be later than createdAt",
    constraints: [.unexpressed("a cross-field rule: expire is later than createdAt", at: "expire")])
  static let codeInRange = ValidationRule(
    "alert codes are within 0...9999", code: .outOfRange, message: "must be an integer from 0 to 9999",
    constraints: [.range(0...9999, at: "code")])

  public var rules: [ValidationRule] { [Self.idNotBlank, Self.expiresAfterCreation, Self.codeInRange] }

  public func validate(_ alert: AlertDTO, into validation: inout Validation) {
    validation.checkNotBlank(Self.idNotBlank, alert.id, at: "id")
    // A cross-field rule, reported at the field that is wrong relative to the other.
    validation.check(Self.expiresAfterCreation, alert.expire > alert.createdAt, at: "expire")
    validation.checkRange(Self.codeInRange, alert.code, 0...9999, at: "code")
  }

  public func map(_ alert: AlertDTO, context _: inout MappingContext) throws(MappingError) -> Alert {
    Alert(
      id: alert.id, deviceID: alert.deviceId, title: alert.title, body: alert.body,
      createdAt: Timestamp(alert.createdAt), expiresAt: Timestamp(alert.expire), code: alert.code)
  }

  public func rows(for alert: Alert, into rows: inout RecordRows) {
    rows.add(
      Devices.alerts, alert.id, alert.deviceID, alert.title, alert.body, alert.createdAt, alert.expiresAt, alert.code)
  }
}
