/**
 * Labels of a model-built UI drop the invisible characters that turn text round (issue 35,
 * finding 14): a right-to-left override in a field's label, a block's title or a button's
 * label is not drawn. In the system Chromium against a real server and the scripted model.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../src/test/index.js';
import { checkAccessibility, pageHarness, say } from './helpers-page.js';

const h = pageHarness();
const RLO = '\u202e';

describe('labels of a model-built UI on the page', () => {
  it('are drawn without bidirectional controls, in the order they were written', async () => {
    const build = [
      {
        instanceId: '__CREATE__',
        newInstanceId: 'pay',
        patches: [{ op: 'set', path: 'meta', value: { pageKey: 'pay', step: { current: 1, total: 1 }, status: 'idle' } }],
      },
      {
        instanceId: 'pay',
        patches: [
          {
            op: 'add',
            path: 'blocks+',
            items: [
              {
                id: 'form',
                type: 'form',
                bind: 'state.params',
                props: {
                  title: `Pay ${RLO}eciovni`,
                  fields: [
                    { label: `Amount${RLO} (EUR)`, key: 'amount', type: 'text', description: `\u2067Due\u2069 today` },
                    { label: 'Account', key: 'account', type: 'radio', options: [{ label: `Savings ${RLO}tnuocca`, value: 'savings' }] },
                  ],
                },
              },
            ],
          },
          { op: 'add', path: 'actions+', items: [{ id: 'send', label: `Send ${RLO}won`, style: 'primary' }] },
        ],
      },
    ];
    const model = scriptedModel([{ text: 'Here it is.', toolCalls: build.map((input) => ({ name: 'patch_ui_state', input: input as never })) }]);
    const { ws, server } = await h.started({ model });
    const page = await h.open(server);
    await say(page, 'Pay the invoice');
    const form = page.getByTestId('ui-instance').and(page.locator('[data-instance-id="pay"]'));
    await form.waitFor();
    const shown = (await form.textContent()) ?? '';
    expect(shown).toContain('Pay eciovni');
    expect(shown).toContain('Amount (EUR)');
    expect(shown).toContain('Due today');
    expect(shown).toContain('Send won');
    expect(shown).toContain('Savings tnuocca');
    expect(shown).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    // The instance keeps what the model wrote: only the drawing leaves the controls out.
    expect(JSON.stringify(ws.ui.get('pay')?.instance.blocks)).toContain(RLO);
    await checkAccessibility(page, '[data-instance-id="pay"]');
  });
});
