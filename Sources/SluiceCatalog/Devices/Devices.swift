import Foundation
@_spi(Internals) import SluiceCore

/// The tables of the two device feeds (seed 000): `devices`, and `alerts` that name their device
/// by its natural key. Shared by `DevicesDataset` and `AlertsDataset`, so a pipeline that loads
/// both feeds writes one `devices` table.
///
/// The relationship is the point of these feeds: an alert is linked to its device by the device's
/// id, resolved in batches against the table (the device may come from an earlier run or an
/// earlier input of the same run); an alert whose device is unknown is an `orphanReference` at
/// `deviceId` — never dropped silently, never attached to a placeholder device. Upserting a
/// device updates its row in place and keeps its alerts; `replace` deletes the device and its
/// alerts go with it (`ON DELETE CASCADE`).
public enum Devices {
  public static let devices = Table(
    "devices", key: ["device_id"],
    columns: [
      .text("device_id", field: "id", checks: [.notEmpty]),
      .text("name", checks: [.notEmpty]),
      .real("latitude", checks: [.atLeast(-90), .atMost(90)]),
      .real("longitude", checks: [.atLeast(-180), .atMost(180)]),
    ])

  public static let alerts = Table(
    "alerts", key: ["alert_id"],
    columns: [
      .text("alert_id", field: "id", checks: [.notEmpty]),
      .reference("device_id", to: devices, field: "deviceId", onDelete: .cascade),
      .text("title"),
      .text("body"),
      .timestamp("created_at", field: "createdAt"),
      .timestamp("expires_at", field: "expire"),
      .integer("code", checks: [.atLeast(0), .atMost(9999)]),
    ],
    // Finds a device's alerts: for the cascade when a device is deleted, and for readers.
    indexes: [Index("alerts_by_device", on: ["device_id"], deferrable: true)])
}

/// A device as the devices feed carries it (seed 000's `Device`, without its `alerts`
/// relationship: the feed has none; alerts come in their own feed).
public struct DeviceDTO: Decodable, Sendable {
  public let id: String
  public let name: String
  public let latitude: Double
  public let longitude: Double
}

/// An alert as the alerts feed carries it (seed 000's `Alert`): its device named by `deviceId`.
public struct AlertDTO: Decodable, Sendable {
  public let id: String
  public let deviceId: String
  public let title: String
  public let body: String
  public let createdAt: Date
  public let expire: Date
  public let code: Int
}

/// A device in the domain, as the loader writes it.
public struct Device: Sendable, Hashable {
  public var id: String
  public var name: String
  public var latitude: Double
  public var longitude: Double
}

/// An alert in the domain: its device by natural key, its times as canonical timestamps.
public struct Alert: Sendable, Hashable {
  public var id: String
  public var deviceID: String
  public var title: String
  public var body: String
  public var createdAt: Timestamp
  public var expiresAt: Timestamp
  public var code: Int
}
