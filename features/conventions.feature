@conventions
Feature: Conventions that hold for every endpoint
  Every path begins with /api/2.3; bodies travel as {"data": …} in JSON; a creation answers
  with a token and a Location; timestamps carry an offset and microseconds; amounts come back
  as decimal numbers; identifiers are 32 lowercase hexadecimal characters; PATCH merges.

  @spec @conv-1 @conv-5 @ver-1 @ep-create
  Scenario: Convention 1: the created tender lives under /api/2.3
    When the owner creates a draft tender
    Then the response status is 201
    And the Location header points under "/api/2.3/tenders/"

  @upstream @conv-1 @ver-1
  Scenario: Paths of another API version are unknown
    When an anonymous client requests "/api/2.2/tenders"
    Then the response status is 404

  @spec @conv-2 @conv-3 @ep-create
  Scenario: Convention 2 and 3: a JSON data envelope in, a JSON data envelope out
    When the owner creates a draft tender
    Then the response status is 201
    And the response is a JSON data envelope holding an object

  @spec @conv-3 @ep-get
  Scenario: Convention 3: a read answers with a data envelope holding the object
    Given the owner has published a tender
    When another broker reads the tender
    Then the response status is 200
    And the response is a JSON data envelope holding an object

  @spec @conv-3 @ep-list
  Scenario: Convention 3: a listing answers with a data envelope holding an array
    When an anonymous client lists the tenders
    Then the response status is 200
    And the response is a JSON data envelope holding an array

  @spec @conv-4 @ep-create
  Scenario: Convention 4: creating a tender returns its access token
    When the owner creates a draft tender
    Then the response status is 201
    And the response carries an access token

  @spec @conv-5 @ep-create
  Scenario: Convention 5: the Location of a created tender is its full address ending with its id
    When the owner creates a draft tender
    Then the response status is 201
    And the Location header is the full address of the created object
    And the Location header ends with the tender id

  @spec @conv-6 @ep-create
  Scenario: Convention 6: output timestamps carry an offset and microseconds
    When the owner creates a tender in one request
    Then the response status is 201
    And every timestamp in the response has a UTC offset and microseconds

  @spec @conv-6 @ep-create
  Scenario: Convention 6: input timestamps may omit the UTC offset
    When the owner creates a draft tender with its period end dates written without a UTC offset
    Then the response status is 201
    And every timestamp in the response has a UTC offset and microseconds

  @upstream @conv-6
  Scenario: Input timestamps without an offset are read in the service's time zone
    When the owner creates a draft tender with its period end dates written without a UTC offset
    Then the response status is 201
    And the enquiry period end keeps the local time that was sent

  @spec @conv-7 @ep-create
  Scenario: Convention 7: amounts sent as integers come back as decimal numbers
    When the owner creates a draft tender
    Then the response status is 201
    And every amount in the response is a decimal number

  @spec @conv-7 @ep-get
  Scenario: Convention 7: amounts stay decimal numbers on every read
    Given the owner has published a tender
    When another broker reads the tender
    Then every amount in the response is a decimal number

  @spec @conv-8 @ep-get
  Scenario: Convention 8: opt_pretty=1 is accepted on a read
    Given the owner has published a tender
    When another broker reads the tender with opt_pretty=1
    Then the response status is 200
    And the response is a JSON data envelope holding an object

  @spec @conv-8 @ep-list
  Scenario: Convention 8: opt_pretty=1 is accepted on the listing
    When an anonymous client lists the tenders with "opt_pretty=1"
    Then the response status is 200
    And the response is a JSON data envelope holding an array

  @spec @conv-9 @ep-create
  Scenario: Convention 9: the service assigns 32-character lowercase hexadecimal identifiers
    When the owner creates a draft tender
    Then the response field "data.id" is a 32-character lowercase hexadecimal identifier
    And every item has a 32-character lowercase hexadecimal id

  @spec @conv-9 @ep-create
  Scenario: Convention 9: an item id supplied by the client is kept
    When the owner creates a draft tender with its own item id
    Then the response status is 201
    And the item id that was sent is kept

  @spec @conv-9 @ep-get
  Scenario: Convention 9: a client's item id is kept after publication and on reads
    Given the owner has created a draft tender with its own item id
    When the owner publishes the draft tender
    And another broker reads the tender
    Then the item id that was sent is kept

  @spec @conv-10 @ep-patch
  Scenario: Convention 10: PATCH merges nested objects and keeps the fields not sent
    Given the owner has published a tender
    When the owner changes the procuring entity's contact telephone
    Then the response status is 200
    And the procuring entity's contact telephone is the new one and its other fields are unchanged

  @spec @conv-10 @ep-patch
  Scenario: Convention 10: PATCH refreshes dateModified
    Given the owner has published a tender
    When the owner changes the tender title
    Then the response status is 200
    And the tender's dateModified is later than before
    And reading the tender shows the dateModified of the change

  @upstream @conv-10
  Scenario: A PATCH that changes nothing keeps dateModified
    Given the owner has published a tender
    When the owner sends the tender title back unchanged
    Then the response status is 200
    And the tender's dateModified is unchanged
