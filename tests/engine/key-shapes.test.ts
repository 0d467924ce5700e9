import { describe, expect, test } from "bun:test";
import { isDestinationShapedKey, isSinkShapedName, splitWords } from "../../src/engine/index.ts";

describe("splitWords()", () => {
  test.each<[string, string[]]>([
    ["reply_to", ["reply", "to"]],
    ["reply-to", ["reply", "to"]],
    ["Reply To", ["reply", "to"]],
    ["replyTo", ["reply", "to"]],
    ["shareWith_emailAddress", ["share", "with", "email", "address"]],
    ["userIDList", ["user", "id", "list"]],
    ["URLPath", ["url", "path"]],
    ["page2Url", ["page2", "url"]],
    ["__to__", ["to"]],
    ["", []],
  ])("splitWords() splits %p on _, -, spaces and camelCase", (name, words) => {
    expect(splitWords(name)).toEqual(words);
  });
});

describe("isSinkShapedName()", () => {
  test.each<[string, string, boolean]>([
    ["to", "send_email", true],
    ["cc", "send_email", true],
    ["bcc", "send_email", true],
    ["recipient", "send_money", true],
    ["recipients", "send_email", true],
    ["user_email", "invite_user", true],
    ["email", "share_file", true],
    ["emailAddress", "x", true],
    ["address", "x", true],
    ["url", "get_webpage", true],
    ["webhookUrl", "x", true],
    ["uri", "x", true],
    ["endpoint", "x", true],
    ["webhook", "x", true],
    ["channel", "send_channel_message", true],
    ["channel_id", "post_message", true],
    ["share_with", "share_doc", true],
    ["phone", "x", true],
    ["phone_number", "send_sms", true],
    ["account_number", "pay", true],
    ["iban", "pay", true],
    ["destination", "x", true],
    ["participants", "create_calendar_event", true],
    ["attendees", "x", true],
    ["invitees", "x", true],
    ["members", "x", true],
    ["target", "send_file", true],
    ["target", "post_update", true],
    ["target", "invite_member", true],
    ["target", "resize_image", false],
    ["issue_number", "get_issue", false],
    ["page_number", "list_pages", false],
    ["subject", "send_email", false],
    ["body", "send_email", false],
    ["email_subject", "send_email", false],
    ["toggle", "x", false],
    ["cc_list", "send_email", true],
    ["recipientList", "send_email", true],
    ["attendees_array", "x", true],
    ["target_list", "send_file", true],
    ["target_list", "resize_image", false],
    ["list", "x", false],
    ["convert_to_array", "get_items", false],
    ["toArray", "x", false],
    ["add_to_list", "x", false],
    ["item_list", "x", false],
    ["", "x", false],
  ])("isSinkShapedName(%p, %p) is %p", (name, tool, expected) => {
    expect(isSinkShapedName(name, tool)).toBe(expected);
  });
});

describe("isDestinationShapedKey()", () => {
  test.each<[string, boolean]>([
    ["to", true],
    ["from", true],
    ["sender", true],
    ["sender_name", true],
    ["recipients", true],
    ["reply_to", true],
    ["replyTo", true],
    ["email", true],
    ["emails", true],
    ["email_address", true],
    ["addresses", true],
    ["participants", true],
    ["attendees", true],
    ["invitees", true],
    ["member", true],
    ["users", true],
    ["organizer", true],
    ["owner", true],
    ["shared_with", true],
    ["author", true],
    ["channels", true],
    ["iban", true],
    ["account", true],
    ["urls", true],
    ["link", true],
    ["website", true],
    ["contacts", true],
    ["phone", true],
    ["handle", true],
    ["username", true],
    ["name", true],
    ["payee", true],
    ["creditor", true],
    ["destination", true],
    ["target", true],
    ["author_id", true],
    ["body", false],
    ["subject", false],
    ["description", false],
    ["content", false],
    ["id", false],
    ["timestamp", false],
    ["primary_contact_email_id", true],
    ["contact_form_id", false],
  ])("isDestinationShapedKey(%p) is %p", (key, expected) => {
    expect(isDestinationShapedKey(key)).toBe(expected);
  });

  test.each<[string, boolean]>([
    ["From", true],
    ["Reply To", true],
    ["Send it to", true],
    ["Please forward the invoice to", false],
  ])("isDestinationShapedKey(%p, { maxWords: 3 }) is %p", (key, expected) => {
    expect(isDestinationShapedKey(key, { maxWords: 3 })).toBe(expected);
  });
});
