import type { Priority } from '@evf/client';
import { optionalBoolean, optionalString, stringList } from './coerce';

export type ListInputData = {
  emails?: unknown;
  emails_text?: unknown;
  name?: unknown;
  priority?: unknown;
  check_smtp?: unknown;
};

/**
 * The addresses as the client's pre-flight takes them: the mapped list, the pasted text, or both
 * (list items first, then the text's lines, so reported positions follow what the user gave).
 */
export function emailsFromInput(input: ListInputData): string | string[] {
  const list = stringList(input.emails);
  const text = optionalString(input.emails_text);
  if (text === undefined) return list;
  if (list.length === 0) return text;
  return [...list, ...text.split(/\r?\n/)];
}

export function jobOptionsFromInput(input: ListInputData): {
  name?: string;
  priority?: Priority;
  check_smtp?: boolean;
} {
  return {
    name: optionalString(input.name),
    // The client checks the value against the allowed priorities and names the field when it is wrong.
    priority: optionalString(input.priority) as Priority | undefined,
    check_smtp: optionalBoolean(input.check_smtp),
  };
}
