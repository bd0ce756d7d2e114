/**
 * A markdown link's text can say one place and go to another (issue 35, finding 14): the page
 * shows where each link goes, its host after the text where the two differ and its whole
 * address on hover. In the system Chromium against a real server and the scripted model.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../src/test/index.js';
import { checkAccessibility, pageHarness, say, shot } from './helpers-page.js';

const h = pageHarness();

describe('links in model text on the page', () => {
  it('show their host after the text where the text says something else, and their address on hover', async () => {
    const text = [
      'Sign in at [your bank](https://evil.example/login "https://bank.example").',
      'Or [https://good.example/docs](https://evil.example/docs), or <https://plain.example/page>, or www.auto.example.',
      'Mail [support](mailto:help@evil.example) or [the café](https://xn--caf-dma.example/).',
    ].join('\n\n');
    const { server } = await h.started({ model: scriptedModel([{ text }]) });
    const page = await h.open(server);
    await say(page, 'Where do I sign in?');
    const message = page.getByTestId('message').filter({ hasText: 'Sign in at' });
    await message.waitFor();
    const links = message.locator('a');
    const shown = async (i: number) => ({ text: await links.nth(i).textContent(), title: await links.nth(i).getAttribute('title') });
    expect(await links.count()).toBe(6);
    // Text that is not where the link goes: the host follows it; the hover shows the whole address, whatever title the model gave.
    expect(await shown(0)).toEqual({ text: 'your bank (evil.example)', title: 'https://evil.example/login' });
    expect(await shown(1)).toEqual({ text: 'https://good.example/docs (evil.example)', title: 'https://evil.example/docs' });
    // A link written as its address says where it goes already.
    expect(await shown(2)).toEqual({ text: 'https://plain.example/page', title: 'https://plain.example/page' });
    expect(await shown(3)).toEqual({ text: 'www.auto.example', title: 'http://www.auto.example/' });
    expect(await shown(4)).toEqual({ text: 'support (help@evil.example)', title: 'mailto:help@evil.example' });
    expect(await shown(5)).toEqual({ text: 'the café (xn--caf-dma.example)', title: 'https://xn--caf-dma.example/' });
    await checkAccessibility(page, '[data-testid="message"]');
    await shot(page, 'markdown-link-hosts');
  });
});
