import { mount } from 'svelte';
import App from './App.svelte';
import { signInFromLink } from './lib/api';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('#app element missing');

// A sign-in link's code is traded for a session before the first request.
await signInFromLink();

export default mount(App, { target });
