@errors
Feature: Errors
  An error is {status: "error", errors: [{description, location, name}]}. A POST that is not
  application/json is 415 header/Content-Type; a body that is not a JSON object with data is
  422 body/data. The other conditions follow upstream.

  @spec @err-415 @err-envelope
  Scenario: A tender posted as text/plain is refused with 415
    When the owner posts a draft tender with Content-Type "text/plain"
    Then the response is an error 415 at "header" named "Content-Type" whose description mentions "application/json"

  @upstream @err-415
  Scenario: The 415 description lists the allowed type the upstream way
    When the owner posts a draft tender with Content-Type "text/plain"
    Then the response is an error 415 at "header" named "Content-Type" saying "Content-Type header should be one of ['application/json']"

  @spec @err-415 @ep-q-post
  Scenario: A question posted as form data is refused with 415
    Given the owner has published a tender
    When a participant posts a question with Content-Type "application/x-www-form-urlencoded"
    Then the response is an error 415 at "header" named "Content-Type" whose description mentions "application/json"

  @spec @err-422 @err-envelope
  Scenario: A body that is not JSON is refused with 422
    When the owner posts this body as JSON to the tenders:
      """
      this is not JSON
      """
    Then the response is an error 422 at "body" named "data"

  @spec @err-422
  Scenario: A JSON object without data is refused with 422
    When the owner posts this body as JSON to the tenders:
      """
      {"not_data": {}}
      """
    Then the response is an error 422 at "body" named "data"

  @upstream @err-422
  Scenario: A data that is not an object is refused with 422
    When the owner posts this body as JSON to the tenders:
      """
      {"data": []}
      """
    Then the response is an error 422 at "body" named "data"

  @spec @err-422 @ep-bid-post @clock @serial
  Scenario: A malformed bid body is refused with 422
    Given the owner has published a tender
    And the tender period has started
    When a bidder posts this body as JSON to the bids:
      """
      value=450000&status=draft
      """
    Then the response is an error 422 at "body" named "data"

  @upstream @err-422
  Scenario: An undecodable body gets upstream's message
    When the owner posts this body as JSON to the tenders:
      """
      {"data": 
      """
    Then the response is an error 422 at "body" named "data" saying "No JSON object could be decoded"

  @upstream @err-422
  Scenario: A missing data gets upstream's message
    When the owner posts this body as JSON to the tenders:
      """
      {"not_data": {}}
      """
    Then the response is an error 422 at "body" named "data" saying "Data not available"

  @upstream
  Scenario: A missing required field is named
    When the owner creates a draft tender without "title"
    Then the response is an error 422 at "body" named "title" saying "This field is required."

  @upstream
  Scenario: An unknown field is a rogue field
    When the owner creates a draft tender with the unknown field "colour"
    Then the response is an error 422 at "body" named "colour" saying "Rogue field"

  @upstream
  Scenario: An unknown procurement method type is not implemented
    When the owner creates a draft tender with procurementMethodType "aboveThresholdXX"
    Then the response is an error 415 at "data" named "procurementMethodType" saying "Not implemented"

  @spec @err-envelope
  Scenario: A read of an unknown tender is refused in the error envelope
    When an anonymous client reads a tender that does not exist
    Then the request is refused with an error

  @spec @err-envelope
  Scenario: An unknown path is refused in the error envelope
    When an anonymous client requests "/api/2.3/no-such-collection"
    Then the request is refused with an error

  @spec @err-envelope
  Scenario: A method the path does not offer is refused in the error envelope
    Given the owner has published a tender
    When an anonymous client sends DELETE to the tender
    Then the request is refused with an error

  @upstream
  Scenario: An unknown tender id is 404 url/tender_id
    When an anonymous client reads a tender that does not exist
    Then the response is an error 404 at "url" named "tender_id" saying "Not Found"

  @upstream
  Scenario: An unknown document id is 404 url/document_id
    Given the owner has published a tender
    When an anonymous client reads a document of the tender that does not exist
    Then the response is an error 404 at "url" named "document_id" saying "Not Found"

  @upstream
  Scenario: An unknown path is 404 url/not_found
    When an anonymous client requests "/api/2.3/no-such-collection"
    Then the response is an error 404 at "url" named "not_found" saying "Not Found"

  @upstream
  Scenario: A method the path does not offer is 405 with an Allow header
    Given the owner has published a tender
    When an anonymous client sends DELETE to the tender
    Then the response is an error 405 at "url" named "method_not_allowed" saying "Method Not Allowed"
    And the response has an Allow header

  @upstream @err-415
  Scenario: A PATCH that is not application/json is refused with 415
    Given the owner has published a tender
    When the owner changes the tender title with Content-Type "text/plain"
    Then the response is an error 415 at "header" named "Content-Type"

  @upstream @err-envelope
  Scenario: Error responses are JSON with the UTF-8 charset
    When an anonymous client reads a tender that does not exist
    Then the response has Content-Type "application/json; charset=UTF-8"
