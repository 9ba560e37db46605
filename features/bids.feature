@bids
Feature: Bids: step by step, in one batch, and their documents
  Bids are registered while the tender is in active.tendering. A bid sent with status draft is
  activated with its own token; a bid sent with its documents and no status is active at once.
  Each bid has its own token, which reads it and uploads its documents.

  @spec @ep-bid-post @bid-draft @phase-bids @conv-4 @conv-5 @conv-9 @clock @serial
  Scenario: A bidder registers a draft bid
    Given the owner has published a tender
    And the tender period has started
    When a bidder registers a draft bid
    Then the response status is 201
    And the response carries an access token
    And the Location header is the full address of the created object
    And the Location header ends with the bid id
    And the response field "data.status" is "draft"
    And the response field "data.id" is a 32-character lowercase hexadecimal identifier

  @spec @ep-bid-patch @bid-activate @auth-2 @clock @serial
  Scenario: The bidder activates its draft bid with the bid token
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the bidder activates the bid
    Then the response status is 200
    And the response field "data.status" is "active"

  @spec @res-value @conv-7 @clock @serial
  Scenario: A bid value sent without a currency takes the tender's currency
    Given the owner has published a tender
    And the tender period has started
    When a bidder registers a draft bid
    Then the response status is 201
    And the bid value has the tender's currency
    And every amount in the response is a decimal number
    When the bidder reads the bid with its token
    Then the response status is 200
    And the bid value has the tender's currency

  @spec @ep-bid-post @bid-batch @ep-rule-3 @clock @serial
  Scenario: A bidder registers an active bid with a document in one batch request
    Given the owner has published a tender
    And the tender period has started
    When a bidder registers a bid with a PDF document in one batch request
    Then the response status is 201
    And the response carries an access token
    And the response field "data.status" is "active"

  @spec @ep-bid-get @auth-2 @clock @serial
  Scenario: The bidder reads its bid with the bid token, documents included
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When the bidder reads the bid with its token
    Then the response status is 200
    And the response field "data.status" is "active"
    And the bid has 1 document

  @upstream @ep-bid-get @res-participation @clock @serial
  Scenario: Before the auction a bid shows no participation address
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When the bidder reads the bid with its token
    Then the response status is 200
    And the response field "data.participationUrl" is absent

  @spec @ep-biddoc-post @ep-rule-3 @conv-5 @clock @serial
  Scenario: The bidder uploads a document to its bid
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the bidder uploads a PDF document to the bid
    Then the response status is 201
    And the Location header ends with the document id
    And the document's url is a download address under the bid's document path

  @spec @ep-biddoc-list @clock @serial
  Scenario: The bidder lists its bid documents
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    And the bidder has uploaded a PDF document to the bid
    When the bidder lists the bid documents
    Then the response status is 200
    And the response is a JSON data envelope holding an array
    And the bid document is listed

  @spec @auth-2 @ep-biddoc-list @clock @serial
  Scenario: A bid's documents are not listed without the bid token while tendering
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And a second bidder has registered an active bid
    When an anonymous client lists the first bid's documents without a token
    Then the request is refused with an error
    And the response shows none of the first bid's documents
    When the second bidder lists the first bid's documents with its own bid token
    Then the request is refused with an error
    And the response shows none of the first bid's documents
    When the owner lists the first bid's documents with the tender token
    Then the request is refused with an error
    And the response shows none of the first bid's documents

  @upstream @ep-biddoc-list @clock @serial
  Scenario: A bid's documents asked for without the bid token while tendering are refused with upstream's message
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When an anonymous client lists the first bid's documents without a token
    Then the response is an error 403 at "body" named "data" saying "Can't view bid documents in current (active.tendering) tender status"

  @spec @phase-bids
  Scenario: A bid before the tendering period is refused
    Given the owner has published a tender
    When a bidder registers a draft bid
    Then the request is refused with an error

  @upstream @phase-bids
  Scenario: A bid before the tendering period is refused with upstream's message
    Given the owner has published a tender
    When a bidder registers a draft bid
    Then the response is an error 403 at "body" named "data" saying "Can't add bid in current (active.enquiries) tender status"

  @upstream @phase-bids @clock @serial
  Scenario: A bid after the tendering period is refused
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And the tender period has ended
    When a bidder registers a draft bid
    Then the request is refused with an error

  @upstream @clock @serial
  Scenario: A bid above the tender value is refused
    Given the owner has published a tender
    And the tender period has started
    When a bidder registers a draft bid above the tender value
    Then the response is an error 422 at "body" named "value"

  @upstream @clock @serial
  Scenario: Bids stay hidden in the tender during tendering
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When an anonymous client reads the tender
    Then the response field "data.bids" is absent

  @spec @auth-2 @ep-bid-get @clock @serial
  Scenario: The tender token does not read a bid
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When the owner reads the bid with the tender token
    Then the request is refused with an error

  @upstream @clock @serial
  Scenario: The tender owner cannot read a bid during tendering
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When the owner reads the bid with the tender token
    Then the response is an error 403 at "body" named "data" saying "Can't view bid in current (active.tendering) tender status"
