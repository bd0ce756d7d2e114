import { render } from 'preact';
import { App } from './components/App.js';
import { applyTheme, readTheme } from './theme.js';
import { followVisibleHeight } from './viewport.js';
import './styles.css';
import './messages.css';
import './ui-blocks.css';
import './ui-fields.css';
import './ui-layout.css';
import './approval-dialog.css';

// Before the first paint: no flash of the other theme.
applyTheme(readTheme());
followVisibleHeight();
const root = document.getElementById('app');
if (root !== null) render(<App />, root);
