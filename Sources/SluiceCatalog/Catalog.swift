@_spi(Internals) import SluiceCore

/// Every dataset Sluice knows, by the name pipeline specs use.
public enum Catalog {
  public static let datasets: [AnyDataset] = [
    AnyDataset(FruitsDataset()),
    AnyDataset(OrdersDataset()),
    AnyDataset(MessagesDataset()),
    AnyDataset(DevicesDataset()),
    AnyDataset(AlertsDataset()),
    AnyDataset(ProfilesDataset()),
    AnyDataset(ProfilePatchesDataset()),
    AnyDataset(StackExchangeUsersDataset()),
    AnyDataset(StackExchangeTagsDataset()),
    AnyDataset(StackExchangePostsDataset()),
    AnyDataset(StackExchangeCommentsDataset()),
    AnyDataset(StackExchangeVotesDataset()),
    AnyDataset(StackExchangeBadgesDataset()),
    AnyDataset(StackExchangePostLinksDataset()),
    AnyDataset(StackExchangePostHistoryDataset()),
    AnyDataset(SlackUsersDataset()),
    AnyDataset(SlackChannelsDataset()),
    AnyDataset(SlackFileConversationsDataset()),
    AnyDataset(SlackMessagesDataset()),
    AnyDataset(DiscordDataset()),
    AnyDataset(MattermostDataset()),
    AnyDataset(MessengerDataset()),
    AnyDataset(TelegramDataset()),
  ]

  public static func dataset(named name: String) -> AnyDataset? {
    datasets.first { $0.name == name }
  }
}
