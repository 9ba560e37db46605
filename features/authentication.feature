@authentication
Feature: Authentication and tokens
  Brokers authenticate with HTTP Basic; the user name becomes the owner. Changes to a tender and
  its records need the tender token in acc_token; a bid's changes and private reads need the bid
  token. That a token belongs to the broker that received it is upstream's rule.

  @spec @auth-1 @ep-create
  Scenario: The broker in the credentials becomes the owner
    When the owner creates a draft tender
    Then the response status is 201
    And the tender owner is the owner broker
    When another broker reads the tender
    Then the tender owner is the owner broker

  @spec @auth-1
  Scenario: Two brokers' tenders carry two owners
    Given the owner has created a draft tender
    Then the tender owner is the owner broker
    Given another broker has created a draft tender
    Then the tender owner is the other broker

  @spec @auth-2
  Scenario: A tender change without a token is refused
    Given the owner has published a tender
    When the owner changes the tender title without a token
    Then the request is refused with an error
    And reading the tender shows the title unchanged

  @spec @auth-2
  Scenario: A tender change with a wrong token is refused
    Given the owner has published a tender
    When the owner changes the tender title with a wrong token
    Then the request is refused with an error
    And reading the tender shows the title unchanged

  @upstream @auth-2
  Scenario: Another broker cannot use the owner's token
    Given the owner has published a tender
    When another broker changes the tender title with the owner's token
    Then the request is refused with an error
    And reading the tender shows the title unchanged

  @spec @auth-2 @ep-doc-post
  Scenario: A tender document upload needs the tender token
    Given the owner has published a tender
    When the owner uploads a PDF document to the tender without a token
    Then the request is refused with an error

  @upstream @auth-2 @ep-doc-post
  Scenario: Another broker cannot upload a tender document with the owner's token
    Given the owner has published a tender
    When another broker uploads a PDF document to the tender with the owner's token
    Then the request is refused with an error

  @spec @auth-2 @ep-q-patch
  Scenario: Answering a question needs the tender token
    Given the owner has published a tender
    And a participant has asked a question about the tender
    When the owner answers the question without a token
    Then the request is refused with an error

  @spec @auth-2 @clock @serial
  Scenario: The bid token does not change the tender
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the bidder changes the tender title with its bid token
    Then the request is refused with an error

  @spec @auth-2 @ep-bid-patch @clock @serial
  Scenario: The tender token does not activate a bid
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the owner activates the bid with the tender token
    Then the request is refused with an error

  @spec @auth-2 @ep-biddoc-post @clock @serial
  Scenario: A bid document upload needs the bid token
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the bidder uploads a PDF document to the bid without a token
    Then the request is refused with an error

  @spec @auth-3 @ep-q-post
  Scenario: Asking a question needs no token
    Given the owner has published a tender
    When a participant asks a question about the tender
    Then the response status is 201

  @upstream @auth-2
  Scenario: A refused token is 403 url/permission Forbidden
    Given the owner has published a tender
    When the owner changes the tender title with a wrong token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"

  @upstream @auth-2
  Scenario: Another broker's use of a token is 403 url/permission Forbidden
    Given the owner has published a tender
    When another broker changes the tender title with the owner's token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"

  @upstream @auth-1
  Scenario: Creating a tender without credentials is 403, never 401
    When an anonymous client creates a draft tender
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"

  @upstream @auth-2
  Scenario: The token is also accepted in the X-Access-Token header
    Given the owner has published a tender
    When the owner changes the tender title with the token in the X-Access-Token header
    Then the response status is 200

  @upstream @auth-2
  Scenario: The token is also accepted as access.token in the body
    Given the owner has published a tender
    When the owner changes the tender title with the token in the body
    Then the response status is 200
