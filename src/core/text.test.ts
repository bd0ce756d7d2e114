import { describe, expect, it } from 'vitest';
import { showBidiControls, stripBidiControls } from './text.js';

const CONTROLS = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];

describe('bidirectional controls', () => {
  it('are shown by their codes in what a person approves, and nothing else changes', () => {
    expect(showBidiControls('rm -rf ~/\u202etxt.exe')).toBe('rm -rf ~/⟨U+202E⟩txt.exe');
    expect(CONTROLS.map(showBidiControls)).toEqual([
      '⟨U+061C⟩',
      '⟨U+200E⟩',
      '⟨U+200F⟩',
      '⟨U+202A⟩',
      '⟨U+202B⟩',
      '⟨U+202C⟩',
      '⟨U+202D⟩',
      '⟨U+202E⟩',
      '⟨U+2066⟩',
      '⟨U+2067⟩',
      '⟨U+2068⟩',
      '⟨U+2069⟩',
    ]);
    // Right-to-left words themselves are text, not controls.
    expect(showBidiControls('שלום مرحبا ok')).toBe('שלום مرحبا ok');
  });

  it('are left out of labels', () => {
    expect(stripBidiControls(`Pay ${CONTROLS.join('')}now`)).toBe('Pay now');
    expect(stripBidiControls('שלום')).toBe('שלום');
  });
});
