@listing
Feature: Listing and paging
  GET /api/2.3/tenders needs no credentials. It answers {next_page, data} where each row holds
  the id and dateModified of a published tender; next_page holds an offset and the same offset
  URL-encoded in its path and uri.

  @spec @ep-list @auth-3
  Scenario: The list is read without an Authorization header
    When an anonymous client lists the tenders
    Then the response status is 200
    And the next page offers its path, uri and offset

  @spec @ep-list
  Scenario: The next page offset is empty exactly when the page is empty
    When an anonymous client lists the tenders
    Then the response status is 200
    And the next page offset is empty exactly when the page is empty

  @spec @ep-list
  Scenario: Each row holds the id and dateModified of a tender
    Given the owner has published a tender
    When an anonymous client pages through the tender list from the tender's creation
    Then the tender is listed with its dateModified

  @spec @ep-list
  Scenario: The next page offset is a timestamp held URL-encoded by its path and uri
    Given the owner has published a tender
    When an anonymous client lists the tenders from the tender's creation
    Then the response status is 200
    And the next page offset is a timestamp held URL-encoded by its path and uri

  @spec @ep-list
  Scenario: Following the next page continues the list
    Given the owner has published a tender
    When an anonymous client lists the tenders from the tender's creation
    And the anonymous client follows the next page
    Then the response status is 200
    And the response is a JSON data envelope holding an array

  @spec @ep-list @state-draft
  Scenario: Paging to the end lists every published tender and no draft
    Given the owner has created more tenders than a page of the list holds, and a draft tender
    When an anonymous client pages through the tender list from the tenders' creation
    Then every tender the owner published is listed at least once
    And no draft the owner created is listed

  @upstream @ep-list
  Scenario: Paging to the end lists every published tender exactly once
    Given the owner has created more tenders than a page of the list holds, and a draft tender
    When an anonymous client pages through the tender list from the tenders' creation
    Then every tender the owner published is listed exactly once

  @spec @ep-list @conv-6
  Scenario: A page's offset is given back in the output form whatever form was sent
    When an anonymous client lists the tenders from a far future offset written without microseconds
    Then the response status is 200
    And the next page offset is empty or a timestamp with an offset and microseconds

  @spec @ep-list @conv-10
  Scenario: A changed tender is listed with its new dateModified
    Given the owner has published a tender
    And the owner has changed the tender title
    When an anonymous client pages through the tender list from the tender's creation
    Then the tender is listed with its dateModified

  @upstream @ep-list
  Scenario: The limit parameter bounds the page size
    Given the owner has published a tender
    When an anonymous client lists the tenders with "limit=1"
    Then the response status is 200
    And the page holds at most 1 tender

  @upstream @ep-list
  Scenario: Rows are ordered by dateModified
    Given the owner has published a tender
    When an anonymous client lists the tenders from the tender's creation
    Then the rows are in ascending order of dateModified

  @upstream @ep-list
  Scenario: descending=1 lists the latest changes first
    Given the owner has published a tender
    When an anonymous client lists the tenders with "descending=1"
    Then the response status is 200
    And the rows are in descending order of dateModified

  @upstream @ep-list
  Scenario: An empty page repeats the requested offset
    When an anonymous client lists the tenders from a far future offset
    Then the response status is 200
    And the page is empty
    And the next page offset is the requested one

  @upstream @ep-list
  Scenario: opt_fields adds the named fields to each row
    Given the owner has published a tender
    When an anonymous client lists the tenders from the tender's creation with "opt_fields=status"
    Then every row shows its status

  @upstream @ep-list
  Scenario: mode=test lists tenders in test mode
    Given the owner has created a tender in test mode
    When an anonymous client pages through the tender list from the tender's creation with "mode=test"
    Then the tender is listed
